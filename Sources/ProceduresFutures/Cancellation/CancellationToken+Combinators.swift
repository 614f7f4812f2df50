import ProceduresSupport
extension CancellationToken {
    /// A token that completes with `transform()` once this one is cancelled, and as *not
    /// cancelled* if this one completes that way (then `transform` never runs).
    ///
    /// `transform` runs on the thread that cancels this token.
    public func map(_ transform: @escaping @Sendable () -> Bool) -> CancellationToken {
        let result = CancellationToken()
        onComplete { cancelled in
            result.complete(cancelled: cancelled ? transform() : false)
        }
        return result
    }

    /// A token that, once this one is cancelled, takes on the eventual state of the token
    /// `transform()` returns; it completes as *not cancelled* if this one does.
    public func flatMap(_ transform: @escaping @Sendable () -> CancellationToken) -> CancellationToken {
        let result = CancellationToken()
        onComplete { cancelled in
            guard cancelled else {
                result.complete(cancelled: false)
                return
            }
            transform().onComplete { result.complete(cancelled: $0) }
        }
        return result
    }

    /// A token cancelled only when both are cancelled.
    ///
    /// Unlike the reference library it always completes, and symmetrically: it completes as
    /// *not cancelled* as soon as either side completes that way, whichever comes first.
    public static func && (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
        combine(lhs, rhs, decidedBy: false)
    }

    /// A token cancelled as soon as either is cancelled.
    ///
    /// Unlike the reference library it always completes: when both sides complete as *not
    /// cancelled*, so does the result.
    public static func || (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
        combine(lhs, rhs, decidedBy: true)
    }

    /// Completes with `decisive` as soon as one side completes with it, otherwise with the
    /// opposite once both sides have completed.
    private static func combine(
        _ lhs: CancellationToken, _ rhs: CancellationToken, decidedBy decisive: Bool
    ) -> CancellationToken {
        let result = CancellationToken()
        let remaining = LockedValue(2)
        let observe: @Sendable (Bool) -> Void = { cancelled in
            if cancelled == decisive {
                result.complete(cancelled: decisive)
            } else if remaining.withLock({ $0 -= 1; return $0 == 0 }) {
                result.complete(cancelled: !decisive)
            }
        }
        lhs.onComplete(observe)
        rhs.onComplete(observe)
        return result
    }
}
