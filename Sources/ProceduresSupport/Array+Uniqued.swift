extension Array {
    /// Each element once, by `key`, in order of first appearance. The lists it is used on (a
    /// procedure's conditions, their categories) are a handful long: a set is made only for
    /// longer ones.
    ///
    /// Public only so that it is inlined and specialised into its callers in other modules
    /// (this module is no product); not API.
    @inlinable
    public func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
        if count <= 1 { return self }
        if count <= 8 {
            var keys: [Key] = []
            return filter { element in
                let elementKey = key(element)
                if keys.contains(elementKey) { return false }
                keys.append(elementKey)
                return true
            }
        }
        var seen = Set<Key>()
        return filter { seen.insert(key($0)).inserted }
    }
}
