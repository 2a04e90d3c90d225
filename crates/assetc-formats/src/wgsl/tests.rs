use super::*;

const FRAGMENT: &str =
    "@fragment\nfn fs() -> @location(0) vec4<f32> {\n    return vec4<f32>(1.0);\n}\n";

fn problem(text: &[u8]) -> String {
    let problems = validate(text);
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems[0].to_string()
}

#[test]
fn a_plain_module_of_one_entry_point_is_valid() {
    assert_eq!(validate(FRAGMENT.as_bytes()), []);
    let info = read(FRAGMENT.as_bytes()).unwrap();
    assert_eq!(info.lines, 4);
    #[cfg(feature = "wgsl-naga")]
    {
        let m = info.module.unwrap();
        assert_eq!(m.entry_points.len(), 1);
        assert_eq!(m.entry_points[0].name, "fs");
        assert_eq!(m.entry_points[0].stage, "fragment");
    }
}

#[test]
fn what_is_not_plain_wgsl_text_is_refused() {
    assert!(problem(b"").contains("empty"));
    assert!(problem(b" \n\t\n").contains("empty"));
    assert!(problem(b"fn f() {}\xff").starts_with("at byte 9: not UTF-8"));
    assert!(problem(b"fn f() {}\0").starts_with("at byte 9: a NUL"));
    let imported = format!("#import my_game::common\n{FRAGMENT}");
    assert!(problem(imported.as_bytes()).starts_with("line 1: a preprocessor line (`#import"));
    let wesl = format!("\n  import package::lib::f;\n{FRAGMENT}");
    assert!(problem(wesl.as_bytes()).starts_with("line 2: a WESL `import`"));
    let deep = format!("const x = {}1.0{};", "(".repeat(300), ")".repeat(300));
    assert!(problem(deep.as_bytes()).contains("brackets nest deeper than 256"));
}

#[cfg(feature = "wgsl-naga")]
#[test]
fn naga_parses_validates_and_counts_entry_points() {
    let e = problem(b"fn f() -> f32 {\n    return 1.0 +;\n}\n");
    assert!(e.starts_with("2:"), "{e}");
    assert!(e.contains("does not parse"), "{e}");
    // Parses, but a function returning nothing where it promised an f32 fails validation.
    let e = problem(b"@compute @workgroup_size(1) fn main() {}\nfn f() -> f32 {}\n");
    assert!(e.starts_with("invalid WGSL module"), "{e}");
    let two = format!(
        "{FRAGMENT}@vertex fn vs() -> @builtin(position) vec4<f32> {{ return vec4<f32>(0.0); }}\n"
    );
    let e = problem(two.as_bytes());
    assert!(
        e.starts_with("2 entry points (fragment fs, vertex vs)"),
        "{e}"
    );
    let e = problem(b"fn f() -> f32 { return 1.0; }\n");
    assert!(e.starts_with("0 entry points"), "{e}");
}
