// Tests that import ProceduresTesting get the library too.
@_exported import Procedures
