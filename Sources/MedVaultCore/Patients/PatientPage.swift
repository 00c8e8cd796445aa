/// One page of a patient list.
public struct PatientPage: Sendable, Hashable {
    /// The patients of this page, in patient order.
    public var patients: [Patient]
    /// Where the next page starts, or `nil` when this is the last page.
    public var nextCursor: PatientCursor?

    /// Creates a page.
    public init(patients: [Patient], nextCursor: PatientCursor?) {
        self.patients = patients
        self.nextCursor = nextCursor
    }
}
