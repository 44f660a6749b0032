//! The CRCs of TS 38.212 §5.1 that LDPC transport blocks use: the parity bits p_0 … p_{L−1}
//! of a_0 … a_{A−1} are the remainder of a(D)·D^L divided by the generator polynomial, p_0
//! the coefficient of D^{L−1} (no initial value, no final inversion), appended after the
//! data.

/// One of the generator polynomials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Crc {
    /// gCRC24A(D) = D²⁴ + D²³ + D¹⁸ + D¹⁷ + D¹⁴ + D¹¹ + D¹⁰ + D⁷ + D⁶ + D⁵ + D⁴ + D³ + D + 1:
    /// transport blocks of more than 3824 bits.
    Crc24A,
    /// gCRC24B(D) = D²⁴ + D²³ + D⁶ + D⁵ + D + 1: each code block of a segmented transport block.
    Crc24B,
    /// gCRC16(D) = D¹⁶ + D¹² + D⁵ + 1: transport blocks of up to 3824 bits.
    Crc16,
}

impl Crc {
    /// L, the parity bits.
    pub fn len(self) -> usize {
        match self {
            Crc::Crc24A | Crc::Crc24B => 24,
            Crc::Crc16 => 16,
        }
    }

    /// Never empty (clippy's pair for `len`).
    pub fn is_empty(self) -> bool {
        false
    }

    /// The generator's coefficients below D^L, bit i for D^i.
    fn low(self) -> u32 {
        match self {
            Crc::Crc24A => 0x86_4CFB,
            Crc::Crc24B => 0x80_0063,
            Crc::Crc16 => 0x1021,
        }
    }

    /// The transport block CRC §7.2.1 / §6.2.1 picks for A bits: CRC24A above 3824, else CRC16.
    pub fn for_transport_block(a: usize) -> Crc {
        if a > 3824 {
            Crc::Crc24A
        } else {
            Crc::Crc16
        }
    }

    /// The remainder of `bits`(D) · D^L (bits 0 or 1, a_0 first), as an L-bit number whose
    /// top bit is p_0.
    pub fn remainder(self, bits: &[u8]) -> u32 {
        let l = self.len();
        let mask = (1u32 << l) - 1;
        let top = 1u32 << (l - 1);
        let mut reg = 0u32;
        for &b in bits {
            let feedback = ((reg & top) != 0) ^ (b & 1 == 1);
            reg = (reg << 1) & mask;
            if feedback {
                reg ^= self.low();
            }
        }
        reg
    }

    /// `bits` followed by their parity bits p_0 … p_{L−1}.
    pub fn attach(self, bits: &[u8]) -> Vec<u8> {
        let r = self.remainder(bits);
        let l = self.len();
        let mut out = Vec::with_capacity(bits.len() + l);
        out.extend_from_slice(bits);
        out.extend((0..l).map(|i| ((r >> (l - 1 - i)) & 1) as u8));
        out
    }

    /// Whether `bits` (data then parity) pass the check: the remainder of the whole is 0.
    pub fn check(self, bits: &[u8]) -> bool {
        bits.len() >= self.len() && self.remainder(bits) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ascii_bits(s: &str) -> Vec<u8> {
        s.bytes()
            .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1))
            .collect()
    }

    #[test]
    fn catalogue_check_values() {
        // The "123456789" check values of the same polynomials with zero initial value and no
        // reflection: CRC-16/XMODEM 0x31C3, CRC-24/LTE-A 0xCDE703, CRC-24/LTE-B 0x23EF52.
        let msg = ascii_bits("123456789");
        assert_eq!(Crc::Crc16.remainder(&msg), 0x31C3);
        assert_eq!(Crc::Crc24A.remainder(&msg), 0xCD_E703);
        assert_eq!(Crc::Crc24B.remainder(&msg), 0x23_EF52);
    }

    #[test]
    fn attached_words_check_and_errors_are_caught() {
        for crc in [Crc::Crc16, Crc::Crc24A, Crc::Crc24B] {
            let data: Vec<u8> = (0..1000).map(|i| ((i * 7 + i / 5) % 3 % 2) as u8).collect();
            let mut word = crc.attach(&data);
            assert_eq!(word.len(), 1000 + crc.len());
            assert!(crc.check(&word));
            word[517] ^= 1;
            assert!(!crc.check(&word));
        }
        assert_eq!(Crc::for_transport_block(3824), Crc::Crc16);
        assert_eq!(Crc::for_transport_block(3825), Crc::Crc24A);
    }
}
