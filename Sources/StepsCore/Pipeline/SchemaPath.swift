import Foundation

/// Where a value is in the document, as the schema reader descends into it: a link to where
/// its parent is, so that going one level down costs one small object, and the components
/// (`["steps", "[2]", "retry"]`) are spelt out only for a message.
final class SchemaPath: Sendable {
    private enum Component {
        case key(String)
        case index(Int)
    }

    private let parent: SchemaPath?
    private let component: Component?

    private init(parent: SchemaPath?, component: Component?) {
        self.parent = parent
        self.component = component
    }

    /// The document itself.
    static var root: SchemaPath { SchemaPath(parent: nil, component: nil) }

    /// The field `key` of the object here.
    func appending(_ key: String) -> SchemaPath { SchemaPath(parent: self, component: .key(key)) }

    /// The element at `index` of the list here.
    func appending(index: Int) -> SchemaPath { SchemaPath(parent: self, component: .index(index)) }

    /// The components from the document down, as ``JSONValue/offset(of:)`` and messages take them.
    var components: [String] {
        var reversed: [String] = []
        var node: SchemaPath? = self
        while let current = node {
            switch current.component {
            case .key(let key)?: reversed.append(key)
            case .index(let index)?: reversed.append("[\(index)]")
            case nil: break
            }
            node = current.parent
        }
        return reversed.reversed()
    }
}
