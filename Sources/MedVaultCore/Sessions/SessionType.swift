/// How a clinical session takes place: an open set of string values.
///
/// Unknown raw values read from storage are kept intact.
public struct SessionType: ExtensibleCategory {
    /// The stored value.
    public let rawValue: String
    /// Wraps a stored value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Face to face ("presencial").
    public static let inPerson = SessionType(rawValue: "inPerson")
    /// Video call ("videollamada").
    public static let video = SessionType(rawValue: "video")
    /// Phone call ("telefónica").
    public static let phone = SessionType(rawValue: "phone")

}
