//! Converts weights files of format version 1 to version 2, in place:
//! `cargo run -p boardgame-kit --example bgnn_upgrade -- FILE...`. The
//! network is unchanged (its outputs are bit for bit the same); a file
//! already at version 2 is left alone.

use boardgame_kit::nn::{Network, WeightsError, upgrade_v1};

fn main() -> std::process::ExitCode {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let result = std::fs::read(&path).map_err(|e| e.to_string()).and_then(|bytes| {
            match Network::from_bytes(&bytes) {
                Ok(_) => return Ok("already version 2".to_string()),
                Err(WeightsError::Version { found: 1 }) => {}
                Err(e) => return Err(e.to_string()),
            }
            let net = upgrade_v1(&bytes).map_err(|e| e.to_string())?;
            let out = net.to_bytes();
            if Network::from_bytes(&out).as_ref() != Ok(&net) {
                return Err("the converted file does not read back as the same network".into());
            }
            std::fs::write(&path, &out).map_err(|e| e.to_string())?;
            Ok(format!("version 1 ({} bytes) -> version 2 ({} bytes)", bytes.len(), out.len()))
        });
        match result {
            Ok(m) => println!("{path}: {m}"),
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
            }
        }
    }
    if failed { std::process::ExitCode::FAILURE } else { std::process::ExitCode::SUCCESS }
}
