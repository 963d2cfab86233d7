fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let settings = proctor_python::CollectSettings::new(dir.clone());
    let c = proctor_python::collect(&settings, &[], &dir, &[]);
    for i in &c.items { println!("{}  {:?} {}", i.nodeid, i.dynamic, serde_json::to_string(&i.markers).unwrap()); }
    for e in &c.errors { println!("ERR {:?}", e); }
}
