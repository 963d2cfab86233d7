//! Detection on this machine, checked against what the system itself says
//! (`nproc`, `/proc/meminfo`), against loopback services started here, and
//! against a stub interpreter over a fake site-packages directory.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use proctor_caps::{detect, DetectOptions, ServiceProbe};

#[test]
fn cpus_are_what_nproc_prints() {
    let caps = detect(&DetectOptions::default());
    let parallelism = std::thread::available_parallelism().unwrap().get();
    assert_eq!(caps.cpus, parallelism);
    let nproc = std::process::Command::new("nproc")
        .env_remove("OMP_NUM_THREADS")
        .env_remove("OMP_THREAD_LIMIT")
        .output();
    if let Ok(output) = nproc {
        let printed: usize = String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap();
        assert_eq!(caps.cpus, printed);
    }
    assert_eq!(
        (caps.platform.os.as_str(), caps.platform.arch.as_str()),
        (std::env::consts::OS, std::env::consts::ARCH)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn ram_is_mem_total_of_proc_meminfo() {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let line = meminfo
        .lines()
        .find(|line| line.starts_with("MemTotal:"))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(
        detect(&DetectOptions::default()).ram_bytes,
        Some(kib * 1024)
    );
}

#[test]
fn no_gpu_without_nvidia_smi() {
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("nvidia-smi").is_file())
    });
    let caps = detect(&DetectOptions {
        binaries: vec!["nvidia-smi".to_owned()],
        ..DetectOptions::default()
    });
    assert_eq!(caps.has_binary("nvidia-smi"), on_path);
    if !on_path && !cfg!(target_os = "macos") {
        assert!(caps.gpus.is_empty(), "{:?}", caps.gpus);
        assert_eq!(caps.vram_gb_max(), None);
    }
}

/// Requests the servers of one test have read, and the condition their
/// threads wait on.
type Arrivals = Arc<(Mutex<usize>, Condvar)>;

/// Answers every connection with `status` until the listener is dropped
/// with the test process, each only once `arrivals` counts `together`
/// requests read by all the servers sharing it: probes that ran one
/// after the other would wait out their timeout instead.
fn http_server(status: &'static str, arrivals: &Arrivals, together: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let arrivals = Arc::clone(arrivals);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut chunk = [0u8; 256];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&chunk[..n]),
                }
            }
            assert!(
                request.starts_with(b"GET /api/tags HTTP/1.1\r\n"),
                "{}",
                String::from_utf8_lossy(&request)
            );
            let (count, arrived) = &*arrivals;
            let mut seen = count.lock().unwrap();
            *seen += 1;
            arrived.notify_all();
            while *seen < together {
                seen = arrived.wait(seen).unwrap();
            }
            drop(seen);
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    port
}

fn probe(name: &str, port: u16, http_path: Option<&str>) -> ServiceProbe {
    ServiceProbe {
        name: name.to_owned(),
        address_env: Some("PROCTOR_CAPS_TEST_SURELY_UNSET_ADDRESS".to_owned()),
        default_address: format!("127.0.0.1:{port}"),
        http_path: http_path.map(str::to_owned),
    }
}

#[test]
fn loopback_services_are_probed_up_and_down() {
    let plain = TcpListener::bind("127.0.0.1:0").unwrap();
    let plain_port = plain.local_addr().unwrap().port();
    // Neither HTTP server answers before both have a request: the probes
    // run concurrently, or the first waits out the timeout, which no
    // probe here reaches otherwise (the closed ports refuse at once).
    let arrivals = Arrivals::default();
    let ok_port = http_server("200 OK", &arrivals, 2);
    let failing_port = http_server("500 Internal Server Error", &arrivals, 2);
    let closed_port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let timeout = Duration::from_mins(1);
    let options = DetectOptions {
        services: vec![
            probe("plain", plain_port, None),
            probe("ok", ok_port, Some("/api/tags")),
            probe("failing", failing_port, Some("/api/tags")),
            probe("closed", closed_port, None),
            probe("closed_http", closed_port, Some("/api/tags")),
        ],
        tcp_timeout: timeout,
        ..DetectOptions::default()
    };
    let caps = detect(&options);
    let service = |name: &str| &caps.services[name];
    assert_eq!(
        (service("plain").reachable, service("plain").http),
        (true, None)
    );
    assert_eq!(service("plain").address, format!("127.0.0.1:{plain_port}"));
    assert_eq!(service("plain").source, "default");
    assert_eq!(
        (service("ok").reachable, service("ok").http),
        (true, Some(true))
    );
    assert_eq!(
        (service("failing").reachable, service("failing").http),
        (false, Some(false))
    );
    assert_eq!(
        (service("closed").reachable, service("closed").http),
        (false, None)
    );
    assert_eq!(
        (
            service("closed_http").reachable,
            service("closed_http").http
        ),
        (false, None)
    );
    assert!(caps.service_up("ok") && !caps.service_up("failing") && !caps.service_up("closed"));
    drop(plain);
}

#[cfg(unix)]
fn stub_interpreter(dir: &Path, script: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("python");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
#[test]
fn packages_are_read_from_the_site_packages_the_interpreter_names() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site-packages");
    let write = |path: &str, text: &str| {
        let path = site.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "foo_bar-1.2.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: Foo_Bar\nVersion: 1.2\n\nLong description.\n",
    );
    write(
        "baz.egg-info/PKG-INFO",
        "Metadata-Version: 1.0\nName: baz\nVersion: 0.3.1\n",
    );
    let json = format!(
        r#"{{"executable": "/fake/bin/python", "version": "3.11.2", "paths": ["{site}", "{missing}"]}}"#,
        site = site.display(),
        missing = dir.path().join("missing").display()
    );
    // The stub checks that it is asked with `-c`, as a real interpreter is.
    let stub = stub_interpreter(dir.path(), &format!("#!/bin/sh\n[ \"$1\" = -c ] || exit 2\necho 'noise from sitecustomize'\necho '{json}'\n"));
    let caps = detect(&DetectOptions {
        python: Some(stub),
        ..DetectOptions::default()
    });
    let python = caps
        .python
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", caps.warnings));
    assert_eq!(
        (python.executable.as_str(), python.version.as_str()),
        ("/fake/bin/python", "3.11.2")
    );
    let packages: Vec<(&str, &str)> = python
        .packages
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(packages, [("baz", "0.3.1"), ("foo-bar", "1.2")]);
    assert!(caps.has_package("foo_bar") && caps.has_package("BAZ"));
    assert_eq!(caps.python_version(), Some((3, 11)));
    assert!(caps.warnings.is_empty(), "{:?}", caps.warnings);
}

#[cfg(unix)]
#[test]
fn a_broken_or_hung_interpreter_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let broken = stub_interpreter(dir.path(), "#!/bin/sh\necho 'Python 2.7'\n");
    let caps = detect(&DetectOptions {
        python: Some(broken),
        ..DetectOptions::default()
    });
    assert!(caps.python.is_none());
    assert!(
        caps.warnings[0].contains("did not answer like a Python interpreter"),
        "{:?}",
        caps.warnings
    );

    let hung = dir.path().join("hung");
    std::fs::create_dir(&hung).unwrap();
    // It writes its pid, then hangs for longer than any test run: detect
    // must kill it after its timeout (the process is gone once detect
    // returns), not wait for it.
    let pid_file = hung.join("pid");
    let hung = stub_interpreter(
        &hung,
        &format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 3600\n",
            pid_file.display()
        ),
    );
    let options = DetectOptions {
        python: Some(hung),
        process_timeout: Duration::from_millis(200),
        ..DetectOptions::default()
    };
    let caps = detect(&options);
    // A loaded machine may let the timeout pass before the stub wrote its
    // pid (then it was killed before it could): only a written pid is
    // looked for.
    let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
    assert!(
        pid.trim().is_empty() || !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the hung interpreter {} is still there",
        pid.trim()
    );
    assert!(caps.python.is_none());
    assert!(
        caps.warnings[0].contains("did not finish within 200 ms"),
        "{:?}",
        caps.warnings
    );

    let caps = detect(&DetectOptions {
        python: Some(dir.path().join("absent")),
        ..DetectOptions::default()
    });
    assert!(
        caps.python.is_none() && caps.warnings[0].contains("cannot run"),
        "{:?}",
        caps.warnings
    );
}

#[test]
fn environment_and_resource_options_are_reported() {
    let options = DetectOptions {
        env_names: vec![
            "PATH".to_owned(),
            "PROCTOR_CAPS_TEST_SURELY_UNSET".to_owned(),
        ],
        skip_resource_checks: true,
        ..DetectOptions::default()
    };
    let caps = detect(&options);
    assert!(caps.env_set("PATH") && !caps.env_set("PROCTOR_CAPS_TEST_SURELY_UNSET"));
    assert!(caps.skip_resource_checks);
}
