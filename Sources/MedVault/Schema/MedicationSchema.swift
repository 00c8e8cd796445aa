/// Tables of the medication plan: medications, schedules, dose logs.
enum MedicationSchema {
    static func create(_ db: DatabaseConnection) throws {
    }
}
