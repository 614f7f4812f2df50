@_exported import Procedures
