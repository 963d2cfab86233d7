//! Services: where to find one (an environment variable such as
//! `OLLAMA_HOST`, else a default address), and whether it answers — a TCP
//! connection within the timeout, then optionally a minimal HTTP `GET`.
//!
//! Addresses are reduced to `host:port` before they are stored: a scheme,
//! a path and any `user:password@` are dropped, so credentials written in
//! a URL never reach the output.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::model::Service;

/// A `host:port` to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Address {
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Reads an address written as `host:port`, `host`, `[::1]:port` or a URL
/// (`http://user:pass@host:port/path`). Without a port, `default_port` is
/// used; `None` when there is neither or the text is not an address.
pub(crate) fn parse_address(text: &str, default_port: Option<u16>) -> Option<Address> {
    let text = text.trim();
    let rest = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Credentials end at the last `@` of the authority.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host_port)| host_port);
    let (host, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']')?;
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else if host_port.matches(':').count() > 1 {
        // A bare IPv6 address has no port.
        (host_port, None)
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        }
    };
    let port = match port {
        Some(port) if !port.is_empty() => port.parse().ok()?,
        _ => default_port?,
    };
    let valid_host = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
    valid_host.then(|| Address { host: host.to_owned(), port })
}

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
            None => warning = Some(format!("`{name}` does not hold a `host:port` address or URL; using the default address")),
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
        let service = Service { address: default.to_owned(), source, reachable: false, http: None };
        return (service, warnings);
    };
    let (reachable, http) = match connect(&address, timeout) {
        None => (false, None),
        Some(stream) => match http_path {
            None => (true, None),
            Some(path) => {
                let ok = http_get(stream, &address, path, timeout).is_some_and(|status| (200..300).contains(&status));
                (ok, Some(ok))
            }
        },
    };
    (Service { address: address.to_string(), source, reachable, http }, warnings)
}

/// A connection to `address`, trying every address it resolves to, all
/// within `timeout` (name resolution included).
pub(crate) fn connect(address: &Address, timeout: Duration) -> Option<TcpStream> {
    let deadline = Instant::now() + timeout;
    for socket in resolve(address, timeout)? {
        let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())?;
        if let Ok(stream) = TcpStream::connect_timeout(&socket, left) {
            return Some(stream);
        }
    }
    None
}

/// The socket addresses of `address`, or `None` when resolution fails or
/// takes longer than `timeout` (the resolver has no timeout of its own, so
/// it runs on a thread that is left behind).
fn resolve(address: &Address, timeout: Duration) -> Option<Vec<SocketAddr>> {
    if let Ok(ip) = address.host.parse::<std::net::IpAddr>() {
        return Some(vec![SocketAddr::new(ip, address.port)]);
    }
    let (sender, receiver) = mpsc::channel();
    let target = (address.host.clone(), address.port);
    std::thread::spawn(move || {
        let _ = sender.send(target.to_socket_addrs().map(Iterator::collect::<Vec<_>>));
    });
    receiver.recv_timeout(timeout).ok()?.ok()
}

/// Sends `GET path` over `stream` and returns the status code of the
/// answer, with `timeout` on each read and write.
pub(crate) fn http_get(mut stream: TcpStream, address: &Address, path: &str, timeout: Duration) -> Option<u16> {
    stream.set_read_timeout(Some(timeout)).ok()?;
    stream.set_write_timeout(Some(timeout)).ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nUser-Agent: proctor\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 512];
    while !buffer.contains(&b'\n') && buffer.len() < 4096 {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
    parse_status_line(&String::from_utf8_lossy(&buffer))
}

/// `HTTP/1.1 200 OK` → 200.
pub(crate) fn parse_status_line(text: &str) -> Option<u16> {
    let line = text.lines().next()?;
    let mut words = line.split_whitespace();
    words.next().filter(|version| version.starts_with("HTTP/"))?;
    words.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(clippy::unnecessary_wraps, reason = "compared with what the parsers return")]
    fn address(host: &str, port: u16) -> Option<Address> {
        Some(Address { host: host.to_owned(), port })
    }

    #[test]
    fn addresses_parse_in_every_form() {
        assert_eq!(parse_address("127.0.0.1:11434", None), address("127.0.0.1", 11434));
        assert_eq!(parse_address("ollama", Some(11434)), address("ollama", 11434));
        assert_eq!(parse_address("ollama", None), None);
        assert_eq!(parse_address("http://gpu-box:8080/api/tags", None), address("gpu-box", 8080));
        assert_eq!(parse_address("https://example.com", Some(443)), address("example.com", 443));
        assert_eq!(parse_address("http://localhost:/x", Some(1)), address("localhost", 1));
        assert_eq!(parse_address("[::1]:5432", None), address("::1", 5432));
        assert_eq!(parse_address("[::1]", Some(5432)), address("::1", 5432));
        assert_eq!(parse_address("::1", Some(5432)), address("::1", 5432));
        assert_eq!(address("::1", 5432).unwrap().to_string(), "[::1]:5432");
        assert_eq!(parse_address("host:port", None), None);
        assert_eq!(parse_address("host:99999", None), None);
        assert_eq!(parse_address("", Some(1)), None);
        assert_eq!(parse_address("http://", Some(1)), None);
        assert_eq!(parse_address("bad host:1", None), None);
    }

    #[test]
    fn credentials_are_stripped() {
        let parsed = parse_address("http://user:s3cr3t@db.internal:5432/app?x=1", None).unwrap();
        assert_eq!(parsed, Address { host: "db.internal".into(), port: 5432 });
        assert!(!parsed.to_string().contains("s3cr3t"));
        assert_eq!(parse_address("token@localhost", Some(11434)), address("localhost", 11434));
        assert_eq!(parse_address("postgres://u:p@ss@h:1", None), address("h", 1));
    }

    #[test]
    fn the_variable_wins_over_the_default_when_usable() {
        let default = "127.0.0.1:11434";
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), Some("http://gpu:1234"), default);
        assert_eq!((addr, source.as_str(), warning), (address("gpu", 1234), "OLLAMA_HOST", None));
        let (addr, source, _) = choose_address(Some("OLLAMA_HOST"), Some("gpu"), default);
        assert_eq!((addr, source.as_str()), (address("gpu", 11434), "OLLAMA_HOST"));
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), Some(""), default);
        assert_eq!((addr, source.as_str(), warning), (address("127.0.0.1", 11434), "default", None));
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), None, default);
        assert_eq!((addr, source.as_str(), warning), (address("127.0.0.1", 11434), "default", None));
        let (addr, source, warning) = choose_address(Some("OLLAMA_HOST"), Some("http://u:pw-x@:bad"), default);
        assert_eq!((addr, source.as_str()), (address("127.0.0.1", 11434), "default"));
        let warning = warning.unwrap();
        assert!(warning.contains("OLLAMA_HOST") && !warning.contains("pw-x"), "{warning}");
    }

    #[test]
    fn status_lines_parse() {
        assert_eq!(parse_status_line("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"), Some(200));
        assert_eq!(parse_status_line("HTTP/1.0 503 Service Unavailable\r\n"), Some(503));
        assert_eq!(parse_status_line("SSH-2.0-OpenSSH_9.6\r\n"), None);
        assert_eq!(parse_status_line(""), None);
    }
}
