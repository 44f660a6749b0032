use std::fmt;
use std::str::FromStr;

/// Where a computation runs: the host CPU or the CUDA device with the given ordinal.
///
/// Spelled `cpu`, `cuda` (ordinal 0) or `cuda:N` on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// The host CPU.
    Cpu,
    /// The CUDA device with this ordinal.
    Cuda(usize),
}

impl Device {
    /// Whether this names a CUDA device.
    pub fn is_cuda(self) -> bool {
        matches!(self, Device::Cuda(_))
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

/// A device name that is not `cpu`, `cuda` or `cuda:N`; the message quotes it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid device {given:?}: expected `cpu`, `cuda` or `cuda:N` with N a device ordinal")]
pub struct ParseDeviceError {
    given: String,
}

impl FromStr for Device {
    type Err = ParseDeviceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseDeviceError {
            given: s.to_owned(),
        };
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda(0)),
            other => {
                let n = other.strip_prefix("cuda:").ok_or_else(err)?;
                n.parse().map(Device::Cuda).map_err(|_| err())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        assert_eq!("cpu".parse(), Ok(Device::Cpu));
        assert_eq!("CUDA".parse(), Ok(Device::Cuda(0)));
        assert_eq!("cuda:3".parse(), Ok(Device::Cuda(3)));
        assert_eq!(Device::Cuda(2).to_string(), "cuda:2");
    }

    #[test]
    fn rejects_garbage_with_the_input_named() {
        for bad in ["", "cuda:", "cuda:-1", "cuda:x", "tpu", "cuda:1:2"] {
            let err = bad.parse::<Device>().unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{err}");
        }
    }
}
