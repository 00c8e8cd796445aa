// The ChaCha20-Poly1305 MedVaultKeys carried before libsodium replaced it (commit
// 7194ae0, `SecureChaChaPoly`), kept here only as the C1 benchmark's "before" reference:
// the issue (#32) asks that sync sealing be no slower than it in the same run. Its
// scratch buffer is not wiped here (a benchmark seals no secret). Not shipped.
#if _endian(big)
#error("SecureChaChaPoly XORs the key stream as little-endian words")
#endif
enum HandWrittenChaChaPoly {
    static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    /// A fresh random 96-bit nonce.
    static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    // Scratch layout, in 32-bit words.
    private static let stateOffset = 0        // 16 words: ChaCha20 input
    private static let workOffset = 16        // 16 words: ChaCha20 working state / key stream
    private static let polyROffset = 32       // 5 words: r (26-bit limbs)
    private static let polySOffset = 37       // 4 words: s (the pad)
    private static let polyHOffset = 41       // 5 words: accumulator
    private static let blockOffset = 46       // 4 words: one 16-byte message block
    private static let scratchWords = 50

    /// Seals `plaintext` into `ciphertext` (same length) and returns the 16-byte tag, or
    /// `nil` (nothing written) when the key, nonce or output length is wrong.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: [UInt8],
        associatedData: [UInt8], into ciphertext: UnsafeMutableRawBufferPointer
    ) -> [UInt8]? {
        guard key.count == keyLength, nonce.count == nonceLength, ciphertext.count == plaintext.count else { return nil }
        return withScratch { scratch in
            setUp(scratch, key: key, nonce: nonce)
            crypt(scratch, input: plaintext, output: ciphertext)
            return tag(scratch, associatedData: associatedData, ciphertext: UnsafeRawBufferPointer(ciphertext))
        }
    }

    /// Opens `ciphertext` into `plaintext` (same length); `false`, with `plaintext` left
    /// untouched, when the tag does not match.
    static func open(
        _ ciphertext: UnsafeRawBufferPointer, tag expected: [UInt8], key: UnsafeRawBufferPointer, nonce: [UInt8],
        associatedData: [UInt8], into plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard key.count == keyLength, nonce.count == nonceLength, expected.count == tagLength,
              plaintext.count == ciphertext.count else { return false }
        return withScratch { scratch in
            setUp(scratch, key: key, nonce: nonce)
            let computed = tag(scratch, associatedData: associatedData, ciphertext: ciphertext)
            var difference: UInt8 = 0
            for index in 0..<tagLength { difference |= computed[index] ^ expected[index] }
            guard difference == 0 else { return false }
            crypt(scratch, input: ciphertext, output: plaintext)
            return true
        }
    }

    // MARK: - Scratch

    private static func withScratch<Result>(_ body: (UnsafeMutablePointer<UInt32>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(byteCount: scratchWords * 4, alignment: 16) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            return body(bytes.baseAddress!.bindMemory(to: UInt32.self, capacity: scratchWords))
        }
    }

    // MARK: - ChaCha20

    private static func setUp(_ scratch: UnsafeMutablePointer<UInt32>, key: UnsafeRawBufferPointer, nonce: [UInt8]) {
        let state = scratch + stateOffset
        state[0] = 0x6170_7865
        state[1] = 0x3320_646E
        state[2] = 0x7962_2D32
        state[3] = 0x6B20_6574
        for index in 0..<8 { state[4 + index] = loadLE(key, at: index * 4) }
        state[12] = 0
        nonce.withUnsafeBytes { bytes in
            for index in 0..<3 { state[13 + index] = loadLE(bytes, at: index * 4) }
        }
    }

    /// Writes the key-stream block for `counter` into the work words.
    private static func block(_ scratch: UnsafeMutablePointer<UInt32>, counter: UInt32) {
        let state = scratch + stateOffset
        let work = scratch + workOffset
        state[12] = counter
        for index in 0..<16 { work[index] = state[index] }
        for _ in 0..<10 {
            quarterRound(work, 0, 4, 8, 12)
            quarterRound(work, 1, 5, 9, 13)
            quarterRound(work, 2, 6, 10, 14)
            quarterRound(work, 3, 7, 11, 15)
            quarterRound(work, 0, 5, 10, 15)
            quarterRound(work, 1, 6, 11, 12)
            quarterRound(work, 2, 7, 8, 13)
            quarterRound(work, 3, 4, 9, 14)
        }
        for index in 0..<16 { work[index] = work[index] &+ state[index] }
    }

    @inline(__always)
    private static func quarterRound(_ x: UnsafeMutablePointer<UInt32>, _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        x[a] = x[a] &+ x[b]; x[d] = rotate(x[d] ^ x[a], 16)
        x[c] = x[c] &+ x[d]; x[b] = rotate(x[b] ^ x[c], 12)
        x[a] = x[a] &+ x[b]; x[d] = rotate(x[d] ^ x[a], 8)
        x[c] = x[c] &+ x[d]; x[b] = rotate(x[b] ^ x[c], 7)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }

    /// XORs `input` with the key stream from counter 1 into `output`: whole blocks 8
    /// bytes at a time, the last partial block byte by byte.
    private static func crypt(_ scratch: UnsafeMutablePointer<UInt32>, input: UnsafeRawBufferPointer,
                              output: UnsafeMutableRawBufferPointer) {
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        let stream = UnsafeRawPointer(scratch + workOffset)
        var offset = 0
        var counter: UInt32 = 1
        while offset < input.count {
            block(scratch, counter: counter)
            let length = min(64, input.count - offset)
            var index = 0
            // Key-stream words are little-endian bytes on every platform MedVault runs on,
            // so the stream's memory is the RFC's byte order.
            while index + 8 <= length {
                let word = source.loadUnaligned(fromByteOffset: offset + index, as: UInt64.self)
                    ^ stream.load(fromByteOffset: index, as: UInt64.self)
                target.storeBytes(of: word, toByteOffset: offset + index, as: UInt64.self)
                index += 8
            }
            while index < length {
                let byte = source.load(fromByteOffset: offset + index, as: UInt8.self)
                    ^ stream.load(fromByteOffset: index, as: UInt8.self)
                target.storeBytes(of: byte, toByteOffset: offset + index, as: UInt8.self)
                index += 1
            }
            offset += 64
            counter &+= 1
        }
    }

    // MARK: - Poly1305 (26-bit limbs, after poly1305-donna)

    private static func tag(_ scratch: UnsafeMutablePointer<UInt32>, associatedData: [UInt8],
                            ciphertext: UnsafeRawBufferPointer) -> [UInt8] {
        block(scratch, counter: 0)
        let work = scratch + workOffset
        let r = scratch + polyROffset
        let s = scratch + polySOffset
        let h = scratch + polyHOffset
        r[0] = work[0] & 0x3FF_FFFF
        r[1] = ((work[0] >> 26) | (work[1] << 6)) & 0x3FF_FF03
        r[2] = ((work[1] >> 20) | (work[2] << 12)) & 0x3FF_C0FF
        r[3] = ((work[2] >> 14) | (work[3] << 18)) & 0x3F0_3FFF
        r[4] = (work[3] >> 8) & 0x00F_FFFF
        for index in 0..<4 { s[index] = work[4 + index] }
        for index in 0..<5 { h[index] = 0 }
        for index in 0..<16 { work[index] = 0 }

        associatedData.withUnsafeBytes { absorbPadded(scratch, $0) }
        absorbPadded(scratch, ciphertext)
        var lengths: (UInt64, UInt64) = (UInt64(associatedData.count).littleEndian, UInt64(ciphertext.count).littleEndian)
        withUnsafeBytes(of: &lengths) { absorbPadded(scratch, $0) }
        return finish(scratch)
    }

    /// Absorbs `bytes` zero-padded to whole 16-byte blocks: whole blocks read straight
    /// from `bytes`, the last partial one through the zeroed block words.
    private static func absorbPadded(_ scratch: UnsafeMutablePointer<UInt32>, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let r = scratch + polyROffset
        let h = scratch + polyHOffset
        let block = scratch + blockOffset
        let blockBytes = UnsafeMutableRawPointer(block)
        let key = PolyKey(r: (UInt64(r[0]), UInt64(r[1]), UInt64(r[2]), UInt64(r[3]), UInt64(r[4])))
        var accumulator = (h[0], h[1], h[2], h[3], h[4])
        var offset = 0
        while offset < bytes.count {
            let length = min(16, bytes.count - offset)
            if length == 16 {
                absorb(&accumulator, key,
                       UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                       UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)),
                       UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)),
                       UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            } else {
                for index in 0..<4 { block[index] = 0 }
                blockBytes.copyMemory(from: base + offset, byteCount: length)
                absorb(&accumulator, key, UInt32(littleEndian: block[0]), UInt32(littleEndian: block[1]),
                       UInt32(littleEndian: block[2]), UInt32(littleEndian: block[3]))
                for index in 0..<4 { block[index] = 0 }
            }
            offset += 16
        }
        (h[0], h[1], h[2], h[3], h[4]) = accumulator
    }

    /// Poly1305's `r` in 26-bit limbs, and the multiples by 5 its reduction uses.
    private struct PolyKey {
        let r0, r1, r2, r3, r4: UInt64
        let s1, s2, s3, s4: UInt64

        init(r: (UInt64, UInt64, UInt64, UInt64, UInt64)) {
            (r0, r1, r2, r3, r4) = r
            (s1, s2, s3, s4) = (r1 * 5, r2 * 5, r3 * 5, r4 * 5)
        }
    }

    /// h = (h + m + 2^128) · r mod 2^130 − 5 for one 16-byte block m (four little-endian words).
    @inline(__always)
    private static func absorb(_ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ k: PolyKey,
                               _ m0: UInt32, _ m1: UInt32, _ m2: UInt32, _ m3: UInt32) {
        let mask: UInt32 = 0x3FF_FFFF
        let h0 = UInt64(h.0 &+ (m0 & mask))
        let h1 = UInt64(h.1 &+ (((m0 >> 26) | (m1 << 6)) & mask))
        let h2 = UInt64(h.2 &+ (((m1 >> 20) | (m2 << 12)) & mask))
        let h3 = UInt64(h.3 &+ (((m2 >> 14) | (m3 << 18)) & mask))
        let h4 = UInt64(h.4 &+ ((m3 >> 8) | (1 << 24)))
        let d0 = h0 * k.r0 + h1 * k.s4 + h2 * k.s3 + h3 * k.s2 + h4 * k.s1
        var d1 = h0 * k.r1 + h1 * k.r0 + h2 * k.s4 + h3 * k.s3 + h4 * k.s2
        var d2 = h0 * k.r2 + h1 * k.r1 + h2 * k.r0 + h3 * k.s4 + h4 * k.s3
        var d3 = h0 * k.r3 + h1 * k.r2 + h2 * k.r1 + h3 * k.r0 + h4 * k.s4
        var d4 = h0 * k.r4 + h1 * k.r3 + h2 * k.r2 + h3 * k.r1 + h4 * k.r0
        var carry = d0 >> 26
        h.0 = UInt32(truncatingIfNeeded: d0) & mask
        d1 += carry; carry = d1 >> 26; h.1 = UInt32(truncatingIfNeeded: d1) & mask
        d2 += carry; carry = d2 >> 26; h.2 = UInt32(truncatingIfNeeded: d2) & mask
        d3 += carry; carry = d3 >> 26; h.3 = UInt32(truncatingIfNeeded: d3) & mask
        d4 += carry; carry = d4 >> 26; h.4 = UInt32(truncatingIfNeeded: d4) & mask
        h.0 = h.0 &+ UInt32(truncatingIfNeeded: carry) &* 5
        let c = h.0 >> 26
        h.0 &= mask
        h.1 = h.1 &+ c
    }

    private static func finish(_ scratch: UnsafeMutablePointer<UInt32>) -> [UInt8] {
        let h = scratch + polyHOffset
        let s = scratch + polySOffset
        let g = scratch + workOffset
        let mask: UInt32 = 0x3FF_FFFF
        var c = h[1] >> 26; h[1] &= mask
        h[2] = h[2] &+ c; c = h[2] >> 26; h[2] &= mask
        h[3] = h[3] &+ c; c = h[3] >> 26; h[3] &= mask
        h[4] = h[4] &+ c; c = h[4] >> 26; h[4] &= mask
        h[0] = h[0] &+ c &* 5; c = h[0] >> 26; h[0] &= mask
        h[1] = h[1] &+ c
        // g = h + 5 - 2^130; keep g when it did not underflow (h ≥ p).
        g[0] = h[0] &+ 5; c = g[0] >> 26; g[0] &= mask
        g[1] = h[1] &+ c; c = g[1] >> 26; g[1] &= mask
        g[2] = h[2] &+ c; c = g[2] >> 26; g[2] &= mask
        g[3] = h[3] &+ c; c = g[3] >> 26; g[3] &= mask
        g[4] = h[4] &+ c &- (1 << 26)
        let select = (g[4] >> 31) &- 1
        for index in 0..<5 { h[index] = (h[index] & ~select) | (g[index] & select) }
        h[0] = h[0] | (h[1] << 26)
        h[1] = (h[1] >> 6) | (h[2] << 20)
        h[2] = (h[2] >> 12) | (h[3] << 14)
        h[3] = (h[3] >> 18) | (h[4] << 8)
        var tag = [UInt8](repeating: 0, count: tagLength)
        var sum: UInt64 = 0
        for index in 0..<4 {
            sum = UInt64(h[index]) + UInt64(s[index]) + (sum >> 32)
            let word = UInt32(truncatingIfNeeded: sum)
            for byte in 0..<4 { tag[index * 4 + byte] = UInt8(truncatingIfNeeded: word >> (UInt32(byte) * 8)) }
        }
        for index in 0..<16 { g[index] = 0 }
        return tag
    }

    @inline(__always)
    private static func loadLE(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
