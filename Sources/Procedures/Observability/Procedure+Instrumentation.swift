import Foundation

extension Procedure {
    /// This procedure's number and name (a number is given on first use).
    var instrumentationReference: ProcedureIdentity.Reference {
        lock.withLock { () -> ProcedureIdentity.Reference in
            if state.instrumentation.id == 0 {
                state.instrumentation.id = ProcedureInstrumentation.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
            }
            if let name = state.name { return .init(id: state.instrumentation.id, name: name) }
            // The type's name, worked out once per procedure (String(describing:) on a metatype
            // goes through reflection, dearer than all the rest of a record).
            let typeName = state.instrumentation.withLinks { links in
                if let known = links.typeName { return known }
                let name = _typeName(type(of: self), qualified: false)
                links.typeName = name
                return name
            }
            return .init(id: state.instrumentation.id, name: typeName)
        }
    }

    /// Who this procedure is, its group and producer.
    var instrumentationIdentity: ProcedureIdentity {
        let reference = instrumentationReference
        let (recordedParent, group, producer) = lock.withLock {
            (state.instrumentation.links?.parent, state.instrumentation.links?.parentGroup, state.instrumentation.links?.producer)
        }
        // The group's current name (it may have been named after its children were added).
        let parent = group?.instrumentationReference ?? recordedParent
        return ProcedureIdentity(procedure: reference, parent: parent, producer: producer, parentGroup: group)
    }

    /// Records the group (for an enqueued event) and the producer (for a produce event).
    /// Takes this procedure's lock and others', one at a time.
    func recordInstrumentationLinks(kind: ProcedureLifecycleEvent.Kind, group: GroupProcedure?) {
        switch kind {
        case .enqueued:
            guard let group else { return }
            let parent = group.instrumentationReference
            lock.withLock {
                state.instrumentation.withLinks {
                    $0.parent = parent
                    $0.parentGroup = group
                }
            }
        case .willProduce(let operation):
            guard let child = operation as? Procedure else { return }
            let producer = instrumentationReference
            child.lock.withLock { child.state.instrumentation.withLinks { $0.producer = producer } }
        default:
            return
        }
    }

    /// What an event of `kind` carries; records the links first.
    func instrumentationInfo(group: GroupProcedure?, kind: ProcedureLifecycleEvent.Kind) -> ProcedureIdentity.Snapshot {
        recordInstrumentationLinks(kind: kind, group: group)
        var dependencies: [ProcedureIdentity.Reference] = []
        if case .enqueued = kind {
            dependencies = lock.withLock { state.dependencies }.map(\.instrumentationReference)
        }
        let identity = instrumentationIdentity
        let createdAt = lock.withLock { state.instrumentation.createdAt }
        return .init(identity: identity, createdAt: createdAt == 0 ? nil : createdAt, dependencies: dependencies)
    }
}
