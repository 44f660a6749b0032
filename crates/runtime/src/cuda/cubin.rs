//! What a CUBIN image says about its kernels, read from its ELF sections without the driver:
//! the entry points (symbol table) and each kernel's parameter count (`.nv.info.<kernel>`).
//!
//! The parameter count is what lets the launch helper ask `cuFuncGetParamInfo` for exactly the
//! parameters a kernel has. Probing index by index until the driver answers
//! `CUDA_ERROR_INVALID_VALUE` also finds the count, but every such probe is an API error that
//! compute-sanitizer logs, burying real reports (`cuFuncGetParamCount` would answer it, but
//! only drivers of CUDA 13.2 and later have it).

/// A little-endian view of an ELF64 image with bounds-checked reads.
struct Elf<'a>(&'a [u8]);

impl<'a> Elf<'a> {
    fn u16_at(&self, o: usize) -> Option<usize> {
        Some(u16::from_le_bytes(self.0.get(o..o.checked_add(2)?)?.try_into().ok()?) as usize)
    }
    fn u32_at(&self, o: usize) -> Option<usize> {
        Some(u32::from_le_bytes(self.0.get(o..o.checked_add(4)?)?.try_into().ok()?) as usize)
    }
    fn u64_at(&self, o: usize) -> Option<usize> {
        usize::try_from(u64::from_le_bytes(
            self.0.get(o..o.checked_add(8)?)?.try_into().ok()?,
        ))
        .ok()
    }
    fn cstr_at(&self, o: usize) -> Option<&'a [u8]> {
        let rest = self.0.get(o..)?;
        Some(&rest[..rest.iter().position(|&b| b == 0)?])
    }

    fn open(image: &'a [u8]) -> Option<Self> {
        (image.get(..5)? == b"\x7fELF\x02").then_some(Elf(image))
    }

    /// Offset of section header `i`.
    fn header(&self, i: usize) -> Option<usize> {
        let (shoff, shentsize) = (self.u64_at(0x28)?, self.u16_at(0x3A)?);
        shoff.checked_add(i.checked_mul(shentsize)?)
    }

    fn section_count(&self) -> Option<usize> {
        self.u16_at(0x3C)
    }

    /// Type, file offset and size of section `i`.
    fn section(&self, i: usize) -> Option<(usize, usize, usize)> {
        let sh = self.header(i)?;
        Some((
            self.u32_at(sh.checked_add(4)?)?,
            self.u64_at(sh.checked_add(0x18)?)?,
            self.u64_at(sh.checked_add(0x20)?)?,
        ))
    }

    /// The bytes of the section named `name`.
    fn section_named(&self, name: &[u8]) -> Option<&'a [u8]> {
        let names = self.section(self.u16_at(0x3E)?)?.1;
        (0..self.section_count()?).find_map(|i| {
            let sh = self.header(i)?;
            if self.cstr_at(names.checked_add(self.u32_at(sh)?)?)? != name {
                return None;
            }
            let (_, off, size) = self.section(i)?;
            self.0.get(off..off.checked_add(size)?)
        })
    }
}

/// The global functions marked as CUDA entries (STT_FUNC, global binding, STO_CUDA_ENTRY 0x10
/// in st_other) of the symbol tables; `None` if the image cannot be parsed.
pub(crate) fn entry_points(image: &[u8]) -> Option<Vec<String>> {
    let elf = Elf::open(image)?;
    let mut names = Vec::new();
    for i in 0..elf.section_count()? {
        let (kind, off, size) = elf.section(i)?;
        if kind != 2 {
            continue; // not SHT_SYMTAB
        }
        let sh = elf.header(i)?;
        let entsize = elf.u64_at(sh.checked_add(0x38)?)?.max(24);
        let strtab = elf.section(elf.u32_at(sh.checked_add(0x28)?)?)?.1;
        for sym in (off..off.checked_add(size)?).step_by(entsize) {
            let (info, other) = (
                *image.get(sym.checked_add(4)?)?,
                *image.get(sym.checked_add(5)?)?,
            );
            if info & 0xf == 2 && info >> 4 == 1 && other & 0x10 != 0 {
                let name = elf.cstr_at(strtab.checked_add(elf.u32_at(sym)?)?)?;
                names.push(String::from_utf8_lossy(name).into_owned());
            }
        }
    }
    Some(names)
}

/// Attribute records of `.nv.info` sections: a format byte, an attribute byte, then either a
/// 16-bit length and that many bytes (`EIFMT_SVAL`) or a 16-bit value.
const EIFMT_SVAL: u8 = 0x04;
/// One record per kernel parameter (index, ordinal, offset, size and flags).
const EIATTR_KPARAM_INFO: u8 = 0x17;

/// How many parameters kernel `name` takes: the number of `EIATTR_KPARAM_INFO` records in its
/// `.nv.info.<name>` section. `None` when the image has no such section or a record runs past
/// its end (the launch helper then skips its parameter check rather than guess).
pub(crate) fn param_count(image: &[u8], name: &str) -> Option<usize> {
    let elf = Elf::open(image)?;
    let info = elf.section_named(format!(".nv.info.{name}").as_bytes())?;
    let (mut at, mut count) = (0usize, 0usize);
    while at < info.len() {
        let (format, attribute) = (*info.get(at)?, *info.get(at + 1)?);
        let len = if format == EIFMT_SVAL {
            u16::from_le_bytes(info.get(at + 2..at + 4)?.try_into().ok()?) as usize
        } else {
            0
        };
        if at + 4 + len > info.len() {
            return None;
        }
        count += usize::from(attribute == EIATTR_KPARAM_INFO && format == EIFMT_SVAL);
        at += 4 + len;
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_that_are_not_elf64_give_nothing() {
        assert_eq!(entry_points(b"not an image"), None);
        assert_eq!(param_count(b"\x7fELF\x01....", "k"), None);
        assert_eq!(param_count(&[], "k"), None);
    }

    #[test]
    fn a_truncated_header_gives_nothing_instead_of_reading_past_the_end() {
        let mut image = b"\x7fELF\x02".to_vec();
        image.resize(0x40, 0xff);
        assert_eq!(entry_points(&image), None);
        assert_eq!(param_count(&image, "k"), None);
    }
}
