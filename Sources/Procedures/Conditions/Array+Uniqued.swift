extension Array {
    /// Each element once, by `key`, in order of first appearance. Category and condition lists
    /// are a handful long: a set is made only for longer ones.
    func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
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
