//! GPUs: NVIDIA ones from `nvidia-smi`, and the Apple Silicon GPU, whose
//! usable memory is the system RAM (unified memory).

use std::path::Path;
use std::time::Duration;

use crate::model::Gpu;
use crate::process;

/// The arguments that make `nvidia-smi` print `name, MiB` per GPU.
const NVIDIA_SMI_ARGS: [&str; 2] = [
    "--query-gpu=name,memory.total",
    "--format=csv,noheader,nounits",
];

/// NVIDIA GPUs from `nvidia-smi` at `program`; an error message when it
/// fails or times out.
pub(crate) fn nvidia(program: &Path, timeout: Duration) -> Result<Vec<Gpu>, String> {
    let text =
        process::output(program, &NVIDIA_SMI_ARGS, timeout).map_err(|err| err.to_string())?;
    Ok(parse_nvidia_smi(&text))
}

/// Parses `nvidia-smi --query-gpu=name,memory.total
/// --format=csv,noheader,nounits`: one `NAME, MiB` line per GPU. Lines that
/// do not have that shape (driver messages, `[N/A]`) are skipped.
pub(crate) fn parse_nvidia_smi(text: &str) -> Vec<Gpu> {
    text.lines()
        .filter_map(|line| {
            let (name, mib) = line.rsplit_once(',')?;
            let name = name.trim();
            let mib: u64 = mib.trim().parse().ok()?;
            if name.is_empty() {
                return None;
            }
            Some(Gpu {
                name: name.to_owned(),
                vendor: "nvidia".to_owned(),
                vram_bytes: mib.checked_mul(1 << 20)?,
                unified: false,
            })
        })
        .collect()
}

/// The Apple Silicon GPU, when `brand` (`machdep.cpu.brand_string`) names
/// an Apple chip: its memory is the system's, `ram_bytes`.
#[cfg_attr(
    all(not(target_os = "macos"), not(test)),
    expect(dead_code, reason = "used on macOS only")
)]
pub(crate) fn apple_gpu(brand: &str, ram_bytes: Option<u64>) -> Option<Gpu> {
    let brand = brand.trim();
    brand.contains("Apple").then(|| Gpu {
        name: brand.to_owned(),
        vendor: "apple".to_owned(),
        vram_bytes: ram_bytes.unwrap_or(0),
        unified: true,
    })
}

/// The Apple Silicon GPU of this Mac, if it has one.
#[cfg(target_os = "macos")]
pub(crate) fn apple(ram_bytes: Option<u64>, timeout: Duration) -> Option<Gpu> {
    let brand = crate::cpu_memory::sysctl("machdep.cpu.brand_string", timeout)?;
    apple_gpu(&brand, ram_bytes)
}

/// No Apple GPU outside macOS.
#[cfg(not(target_os = "macos"))]
pub(crate) fn apple(_ram_bytes: Option<u64>, _timeout: Duration) -> Option<Gpu> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_gpus_and_noise_parse() {
        let text = "NVIDIA H200, 143771\nNVIDIA GeForce RTX 4090, 24564\n\
                    No devices were found\nTesla T4, [N/A]\n, 100\n";
        let gpus = parse_nvidia_smi(text);
        assert_eq!(gpus.len(), 2);
        assert_eq!(gpus[0].name, "NVIDIA H200");
        assert_eq!(gpus[0].vram_bytes, 143_771 << 20);
        assert_eq!(
            (gpus[0].vendor.as_str(), gpus[0].unified),
            ("nvidia", false)
        );
        assert_eq!(gpus[1].name, "NVIDIA GeForce RTX 4090");
        assert_eq!(gpus[1].vram_bytes, 24_564 << 20);
        assert!(parse_nvidia_smi("").is_empty());
    }

    #[test]
    fn apple_silicon_uses_unified_memory() {
        let gpu = apple_gpu("Apple M2 Max\n", Some(32 << 30)).unwrap();
        assert_eq!(
            (
                gpu.name.as_str(),
                gpu.vendor.as_str(),
                gpu.vram_bytes,
                gpu.unified
            ),
            ("Apple M2 Max", "apple", 32 << 30, true)
        );
        assert_eq!(
            apple_gpu("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", Some(1)),
            None
        );
    }
}
