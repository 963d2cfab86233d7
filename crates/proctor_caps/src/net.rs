//! Reaching a service: addresses written as `host:port` or as URLs
//! (reduced to `host:port`, so that credentials in a URL go no further),
//! TCP connections within a timeout (name resolution included), and a
//! minimal HTTP/1.1 request for readiness probes and hooks. `proctor caps`
//! probes with it, and `proctor run` starts services and waits on it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A `host:port` to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// The host name or IP address.
    pub host: String,
    /// The port.
    pub port: u16,
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

/// Reads `host:port`, `host`, `[::1]:port` or a URL
/// (`http://user:pass@host:port/path`), dropping scheme, credentials and
/// path; without a port, `default_port`.
#[must_use]
pub fn parse_address(text: &str, default_port: Option<u16>) -> Option<Address> {
    let text = text.trim();
    let rest = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Credentials end at the last `@` of the authority.
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host_port)| host_port);
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
    let valid_host = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
    valid_host.then(|| Address {
        host: host.to_owned(),
        port,
    })
}

/// Whether `address` accepts a connection and, with `http_path`, answers
/// a `GET` with 2xx; the error says what failed.
pub fn probe(address: &Address, http_path: Option<&str>, timeout: Duration) -> Result<(), String> {
    let stream = connect(address, timeout)
        .ok_or_else(|| "the port does not accept connections".to_owned())?;
    let Some(path) = http_path else {
        return Ok(());
    };
    match http_request(stream, address, "GET", path, None, timeout) {
        Some(status) if (200..300).contains(&status) => Ok(()),
        Some(status) => Err(format!("`GET {path}` answered {status}")),
        None => Err(format!("`GET {path}` got no HTTP answer")),
    }
}

/// A connection to `address`, trying every address it resolves to, all
/// within `timeout`.
#[must_use]
pub fn connect(address: &Address, timeout: Duration) -> Option<TcpStream> {
    let deadline = Instant::now() + timeout;
    for socket in resolve(address, timeout)? {
        let left = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())?;
        if let Ok(stream) = TcpStream::connect_timeout(&socket, left) {
            return Some(stream);
        }
    }
    None
}

/// The socket addresses of `address`, or `None` when resolution fails or
/// outlasts `timeout` (the resolver has no timeout of its own, so it runs
/// on a thread that is left behind).
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

/// Sends one HTTP/1.1 request over `stream` and returns the answer's
/// status code, with `timeout` on each read and write. A body is sent as
/// JSON.
#[must_use]
pub fn http_request(
    mut stream: TcpStream,
    address: &Address,
    method: &str,
    path: &str,
    body: Option<&str>,
    timeout: Duration,
) -> Option<u16> {
    stream.set_read_timeout(Some(timeout)).ok()?;
    stream.set_write_timeout(Some(timeout)).ok()?;
    let head = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nUser-Agent: proctor\r\nAccept: */*\r\nConnection: close\r\n");
    let request = match body {
        Some(body) => format!(
            "{head}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
        None => format!("{head}\r\n"),
    };
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
#[must_use]
pub fn parse_status_line(text: &str) -> Option<u16> {
    let mut words = text.lines().next()?.split_whitespace();
    words
        .next()
        .filter(|version| version.starts_with("HTTP/"))?;
    words.next()?.parse().ok()
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
    fn addresses_parse_in_every_form() {
        assert_eq!(
            parse_address("127.0.0.1:11434", None),
            address("127.0.0.1", 11434)
        );
        assert_eq!(
            parse_address("ollama", Some(11434)),
            address("ollama", 11434)
        );
        assert_eq!(parse_address("ollama", None), None);
        assert_eq!(
            parse_address("http://gpu-box:8080/api/tags", None),
            address("gpu-box", 8080)
        );
        assert_eq!(
            parse_address("https://example.com", Some(443)),
            address("example.com", 443)
        );
        assert_eq!(
            parse_address("http://localhost:/x", Some(1)),
            address("localhost", 1)
        );
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
        assert_eq!(
            parsed,
            Address {
                host: "db.internal".into(),
                port: 5432
            }
        );
        assert!(!parsed.to_string().contains("s3cr3t"));
        assert_eq!(
            parse_address("token@localhost", Some(11434)),
            address("localhost", 11434)
        );
    }

    #[test]
    fn status_lines_parse() {
        assert_eq!(
            parse_status_line("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"),
            Some(200)
        );
        assert_eq!(
            parse_status_line("HTTP/1.0 503 Service Unavailable\r\n"),
            Some(503)
        );
        assert_eq!(parse_status_line("SSH-2.0-OpenSSH_9.6\r\n"), None);
        assert_eq!(parse_status_line(""), None);
    }
}
