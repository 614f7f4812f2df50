import Foundation

extension Procedure {
    /// Who this procedure is: its name (its type's name if it has none) and a number unique in
    /// the process, given the first time something asks. `description` reads `name#number`.
    ///
    /// The number is the one logs, profiles and traces show for the procedure, so an identity
    /// printed by your code matches theirs. Two identities of one procedure are equal as long
    /// as its name does not change; identities of two procedures never are.
    ///
    /// ```swift
    /// print("started \(download.identity)")   // "started Download#12"
    /// ```
    public var identity: ProcedureIdentity.Reference { instrumentationReference }
}
