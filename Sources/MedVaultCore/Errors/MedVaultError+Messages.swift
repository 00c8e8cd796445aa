import Foundation

/// Messages for the app's user, in English and Spanish (issue #38): what happened and what
/// to do, one sentence or two per code. Like ``MedVaultError/reason``, never a value of a
/// record; unlike it, written for a patient or a professional rather than a developer.
extension MedVaultError: LocalizedError {
    /// The languages of ``userMessage(language:)``: English and Spanish.
    public static let userMessageLanguages = ["en", "es"]

    /// The message for the app's user in `language` (a BCP 47 tag or its language code:
    /// `es`, `es-MX`, `en-US`), or in the current locale's language when `nil`. Spanish for
    /// any tag whose language is `es`, English otherwise; a code newer than this build gets
    /// a general message.
    ///
    /// For example:
    ///
    /// ```swift
    /// catch let error as MedVaultError {
    ///     showAlert(error.userMessage())   // "La contraseña no abre esta bóveda." in Spanish
    /// }
    /// ```
    public func userMessage(language: String? = nil) -> String {
        let tag = language ?? Locale.current.language.languageCode?.identifier ?? "en"
        let spanish = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first == "es"
        let messages = Self.messages[code] ?? Self.unknownCodeMessage
        return spanish ? messages.es : messages.en
    }

    /// ``userMessage(language:)`` in the current locale's language, so that
    /// `localizedDescription` (and a SwiftUI alert showing it) speaks to the user.
    public var errorDescription: String? { userMessage() }

    /// The message of a code this build does not know (a newer library's).
    static let unknownCodeMessage = (en: "Something went wrong in the records library. Try again.",
                                     es: "Algo falló en la biblioteca de historias clínicas. Inténtelo de nuevo.")

    /// Every code's messages: the test of this file checks that every code the type declares
    /// has both.
    static let messages: [Code: (en: String, es: String)] = [
        .wrongPassword: ("The password does not open this vault.", "La contraseña no abre esta bóveda."),
        .wrongRecoveryKey: ("The recovery key does not open this vault.", "La clave de recuperación no abre esta bóveda."),
        .wrongKey: ("The key does not open this vault's data.", "La clave no abre los datos de esta bóveda."),
        .wrongSyncSecret: ("The sync secret does not match this vault's. Check your recovery kit.",
                           "El secreto de sincronización no es el de esta bóveda. Revise su kit de recuperación."),
        .locked: ("The vault is locked. Unlock it and try again.", "La bóveda está bloqueada. Desbloquéela e inténtelo de nuevo."),
        .notFound: ("The record was not found.", "No se encontró el registro."),
        .conflict: ("The record was changed elsewhere meanwhile. Reload it and try again.",
                    "El registro cambió mientras tanto en otro lugar. Vuelva a cargarlo e inténtelo de nuevo."),
        .validation: ("A field is missing or not valid. Check the form.", "Falta un campo o no es válido. Revise el formulario."),
        .immutable: ("This signed or historical record cannot be changed. Add an addendum instead.",
                     "Este registro firmado o histórico no se puede modificar. Añada una adenda."),
        .duplicate: ("This record already exists.", "Este registro ya existe."),
        .limitExceeded: ("This exceeds a size or quota limit.", "Se supera un límite de tamaño o de cuota."),
        .corrupted: ("Some stored data is damaged. Restore from a backup.",
                     "Algunos datos guardados están dañados. Restaure una copia de seguridad."),
        .notADatabase: ("This file is not a vault, or its key is wrong.", "Este archivo no es una bóveda, o su clave no es la correcta."),
        .fileNotFound: ("The vault's files were not found.", "No se encontraron los archivos de la bóveda."),
        .permissionDenied: ("The app may not read or write the vault's files.",
                            "La aplicación no puede leer o escribir los archivos de la bóveda."),
        .schemaTooNew: ("This vault was written by a newer version. Update the app.",
                        "Esta bóveda la escribió una versión más nueva. Actualice la aplicación."),
        .encryptionUnavailable: ("Encryption is not available on this device.", "El cifrado no está disponible en este dispositivo."),
        .cancelled: ("The operation was cancelled.", "La operación se canceló."),
        .storage: ("The vault could not be read or written. Try again.",
                   "No se pudo leer o escribir la bóveda. Inténtelo de nuevo."),
        .invalidArgument: ("The request is not valid.", "La solicitud no es válida."),
        .diskFull: ("The device is out of space. Free some space and try again.",
                    "El dispositivo no tiene espacio. Libere espacio e inténtelo de nuevo."),
        .vaultInUse: ("Another app or process is using the vault. Try again shortly.",
                      "Otra aplicación o proceso está usando la bóveda. Inténtelo de nuevo en un momento."),
        .offline: ("The server could not be reached. Check the connection.",
                   "No se pudo contactar con el servidor. Revise la conexión."),
        .timeout: ("The server did not answer in time. Try again.", "El servidor no respondió a tiempo. Inténtelo de nuevo."),
        .unauthorized: ("The server refused this device's credentials.", "El servidor rechazó las credenciales de este dispositivo."),
        .tokenExpired: ("This device's sync session expired. It renews at the next sync.",
                        "La sesión de sincronización de este dispositivo caducó. Se renueva en la próxima sincronización."),
        .rateLimited: ("Too many requests. Wait a moment and try again.",
                       "Demasiadas solicitudes. Espere un momento e inténtelo de nuevo."),
        .serverError: ("The server failed. Try again later.", "El servidor falló. Inténtelo más tarde."),
        .badResponse: ("The server's answer could not be understood.", "No se pudo entender la respuesta del servidor."),
    ]
}
