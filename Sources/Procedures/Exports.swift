// `import Procedures` brings the futures and cancellation tokens too: they are one library
// to their users, split into targets only to keep the layers honest.
@_exported import ProceduresFutures
