/// Deterministic Spanish names and clinical prose for the benchmark data.
///
/// The lists deliberately include accented and non-ASCII letters (José, María,
/// Núñez, Peña, Ibáñez, Begoña…) so every workload moves multi-byte UTF-8 through
/// binding, storage and search, as a real Spanish clinic's data does.
///
/// ```swift
/// var names = SpanishNameGenerator(seed: 7)
/// let name = names.fullName()   // e.g. ("María José", "Núñez Ibáñez")
/// ```
public struct SpanishNameGenerator: Sendable {
    public static let firstNames = [
        "José", "María", "María José", "José Luis", "Lucía", "Martín", "Sofía", "Hugo", "Begoña", "Íñigo",
        "Ángel", "Inés", "Rubén", "Raúl", "Verónica", "Jesús", "Concepción", "Nuria", "Álvaro", "Míriam",
        "Óscar", "Andrés", "Ramón", "Julián", "Adrián", "Estíbaliz", "Joaquín", "Sebastián", "Noelia", "Iván",
        "Aitana", "Ainhoa", "Celia", "Tomás", "Elena", "Pilar", "Nicolás", "Amparo", "Germán", "Mónica",
    ]

    public static let surnames = [
        "Núñez", "Peña", "Ibáñez", "García", "Martínez", "López", "Sánchez", "Pérez", "Gómez", "Fernández",
        "Rodríguez", "González", "Hernández", "Jiménez", "Díaz", "Muñoz", "Álvarez", "Romero", "Gutiérrez", "Ruiz",
        "Castaño", "Ordóñez", "Benítez", "Cañizares", "Domínguez", "Vázquez", "Suárez", "Méndez", "Peñalver", "Zúñiga",
        "Márquez", "Beltrán", "Galán", "Calderón", "Muñiz", "Rincón", "Ortuño", "Montaña", "Echevarría", "Logroño",
    ]

    public static let noteSentences = [
        "La paciente refiere insomnio de conciliación desde hace tres semanas.",
        "Se observa ánimo bajo, con anhedonia y pérdida de interés por sus aficiones.",
        "Niega ideación autolítica; mantiene apoyo familiar y red social estable.",
        "Se trabaja la reestructuración cognitiva de pensamientos automáticos negativos.",
        "Acude puntual, colaboradora, con discurso coherente y bien organizado.",
        "Refiere mejoría parcial tras las técnicas de relajación pautadas en la sesión anterior.",
        "Persisten preocupaciones anticipatorias relacionadas con el ámbito laboral.",
        "Se acuerda un registro diario de pensamientos y emociones para la próxima cita.",
        "Describe episodios de angustia con taquicardia y sensación de ahogo en el metro.",
        "Se revisa la higiene del sueño y se pactan horarios regulares de descanso.",
        "Comenta tensión en la relación con su pareja tras la mudanza a Logroño.",
        "Se plantea exposición gradual a situaciones evitadas, empezando por las menos temidas.",
        "Buena adherencia al tratamiento; sin efectos secundarios relevantes según refiere.",
        "Se explora la historia familiar: antecedentes de depresión en línea materna.",
        "Objetivo para la próxima sesión: identificar distorsiones y proponer alternativas.",
    ]

    /// ICD-11 MMS codes and Spanish titles used for the generated diagnoses.
    public static let diagnoses: [(code: String, title: String)] = [
        ("6A70", "Episodio depresivo único"),
        ("6A71", "Trastorno depresivo recurrente"),
        ("6B00", "Trastorno de ansiedad generalizada"),
        ("6B01", "Trastorno de pánico"),
        ("6B20", "Trastorno obsesivo-compulsivo"),
        ("6B40", "Trastorno de estrés postraumático"),
        ("6B43", "Trastorno de adaptación"),
        ("7A00", "Trastorno de insomnio crónico"),
    ]

    private var rng: SplitMix64

    /// Creates a generator; the same seed always yields the same sequence.
    public init(seed: UInt64 = SplitMix64.defaultSeed) {
        rng = SplitMix64(seed: seed)
    }

    /// Creates a generator drawing from `rng`.
    public init(rng: SplitMix64) {
        self.rng = rng
    }

    /// A first name.
    public mutating func firstName() -> String {
        Self.firstNames[Int.random(in: 0..<Self.firstNames.count, using: &rng)]
    }

    /// Two surnames, Spanish style ("Núñez Peña").
    public mutating func lastName() -> String {
        let first = Self.surnames[Int.random(in: 0..<Self.surnames.count, using: &rng)]
        let second = Self.surnames[Int.random(in: 0..<Self.surnames.count, using: &rng)]
        return "\(first) \(second)"
    }

    /// A first name and two surnames.
    public mutating func fullName() -> (first: String, last: String) {
        (firstName(), lastName())
    }

    /// Session notes of exactly `characters` characters, made of whole clinical
    /// sentences and cut at the end.
    public mutating func notes(characters: Int = 600) -> String {
        var text = ""
        while text.count < characters {
            if !text.isEmpty { text += " " }
            text += Self.noteSentences[Int.random(in: 0..<Self.noteSentences.count, using: &rng)]
        }
        return String(text.prefix(characters))
    }

    /// A diagnosis from the list.
    public mutating func diagnosis() -> (code: String, title: String) {
        Self.diagnoses[Int.random(in: 0..<Self.diagnoses.count, using: &rng)]
    }

    /// A birth date between 1940 and 2010, as `YYYY-MM-DD` (days 1–28: always valid).
    public mutating func birthDate() -> String {
        let year = Int.random(in: 1940...2010, using: &rng)
        let month = Int.random(in: 1...12, using: &rng)
        let day = Int.random(in: 1...28, using: &rng)
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// A random version-4 UUID drawn from the generator (so ids are reproducible).
    public mutating func uuid() -> UUIDBytes {
        var bytes = rng.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUIDBytes(bytes)
    }

    /// A value in `range`, from the same stream.
    public mutating func integer(in range: ClosedRange<Int64>) -> Int64 {
        Int64.random(in: range, using: &rng)
    }
}
