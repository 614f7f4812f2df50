import Foundation

extension Double {
    /// 2 → "2", 0.5 → "0.5".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
