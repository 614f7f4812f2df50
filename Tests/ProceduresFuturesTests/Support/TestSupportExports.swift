// Every file of this test target sees the shared test helpers.
@_exported import ProceduresTestSupport
