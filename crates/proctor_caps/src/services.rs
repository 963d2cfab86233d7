//! Services: where to find one (an environment variable such as
//! `OLLAMA_HOST`, else a default address), and whether it answers — a TCP
//! connection within the timeout, then optionally a minimal HTTP `GET`.
//!
//! Addresses are reduced to `host:port` before they are stored: a scheme,
//! a path and any `user:password@` are dropped, so credentials written in
//! a URL never reach the output.

use std::time::Duration;

use crate::model::Service;
use crate::net::{connect, http_request, parse_address, Address};

/// Where a service is: the address in `env_value` (the value of the
/// variable `env_name`) when it is set and valid, else `default`. Returns
/// the address, its source (`env_name` or `default`) and a warning when
/// the variable was set but unusable. The warning never quotes the value.
pub(crate) fn choose_address(
    env_name: Option<&str>,
    env_value: Option<&str>,
    default: &str,
) -> (Option<Address>, String, Option<String>) {
    let fallback = parse_address(default, None);
    let mut warning = None;
    if let (Some(name), Some(value)) = (env_name, env_value.filter(|v| !v.trim().is_empty())) {
        match parse_address(value, fallback.as_ref().map(|a| a.port)) {
            Some(address) => return (Some(address), name.to_owned(), None),
            None => {
                warning = Some(format!(
                "`{name}` does not hold a `host:port` address or URL; using the default address"
            ));
            }
        }
    }
    (fallback, "default".to_owned(), warning)
}

/// Probes one service and describes it.
pub(crate) fn probe_service(
    env_name: Option<&str>,
    env_value: Option<&str>,
    default: &str,
    http_path: Option<&str>,
    timeout: Duration,
) -> (Service, Vec<String>) {
    let (address, source, warning) = choose_address(env_name, env_value, default);
    let mut warnings: Vec<String> = warning.into_iter().collect();
    let Some(address) = address else {
        warnings.push(format!("default address `{default}` is not `host:port`"));
        let service = Service {
            address: default.to_owned(),
            source,
            reachable: false,
            http: None,
        };
        return (service, warnings);
    };
    let (reachable, http) = match connect(&address, timeout) {
        None => (false, None),
        Some(stream) => match http_path {
            None => (true, None),
            Some(path) => {
                let ok = http_request(stream, &address, "GET", path, None, timeout)
                    .is_some_and(|status| (200..300).contains(&status));
                (ok, Some(ok))
            }
        },
    };
    (
        Service {
            address: address.to_string(),
            source,
            reachable,
            http,
        },
        warnings,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(
        clippy::unnecessary_wraps,
        reason = "compared with what the parsers return"
    )]
    fn address(host: &str, port: u16) -> Option<Address> {
        Some(Address {
            host: host.to_owned(),
            port,
        })
    }

    #[test]
    fn the_variable_wins_over_the_default_when_usable() {
        let default = "127.0.0.1:11434";
        let (addr, source, warning) =
            choose_address(Some("OLLAMA_HOST"), Some("http://gpu:1234"), default);
        assert_eq!(
            (addr, source.as_str(), warning),
            (address("gpu", 1234), "OLLAMA_HOST", None)
        );
        let (addr, source, _) = choose_address(Some("OLLAMA_HOST"), Some("gpu"), default);
        assert_eq!(
            (addr, source.as_str()),
            (address("gpu", 11434), "OLLAMA_HOST")
        );
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), Some(""), default);
        assert_eq!(
            (addr, source.as_str(), warning),
            (address("127.0.0.1", 11434), "default", None)
        );
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), None, default);
        assert_eq!(
            (addr, source.as_str(), warning),
            (address("127.0.0.1", 11434), "default", None)
        );
        let (addr, source, warning) =
            choose_address(Some("OLLAMA_HOST"), Some("http://u:pw-x@:bad"), default);
        assert_eq!(
            (addr, source.as_str()),
            (address("127.0.0.1", 11434), "default")
        );
        let warning = warning.unwrap();
        assert!(
            warning.contains("OLLAMA_HOST") && !warning.contains("pw-x"),
            "{warning}"
        );
    }
}
