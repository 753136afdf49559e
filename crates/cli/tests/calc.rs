//! End-to-end tests of `pollen calc`: the built binary runs scripts, and its standard
//! output, standard error and exit status are compared with expectations.
//!
//! Printed sets and maps are compared semantically (parsed back and tested with
//! `is_equal`), so that the tests state what the answer is, not how the printer happens
//! to spell it; booleans and counts are compared as text.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pollen_presburger::text::{parse_object, Parsed};
use pollen_presburger::UnionMap;

/// What a run printed and how it ended.
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

impl Run {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

fn finish(output: Output) -> Run {
    Run {
        stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
        code: output.status.code(),
    }
}

/// Runs `pollen calc` with the script on standard input.
fn calc_stdin(script: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("calc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pollen starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("script written");
    finish(child.wait_with_output().expect("pollen runs"))
}

/// Runs `pollen` with arguments.
fn pollen(args: &[&str]) -> Run {
    finish(
        Command::new(env!("CARGO_BIN_EXE_pollen"))
            .args(args)
            .output()
            .expect("pollen runs"),
    )
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// Any parsed object as a union map, so that objects of different kinds compare.
fn as_union(p: Parsed) -> UnionMap {
    match p {
        Parsed::Set(s) => UnionMap::from_map(s.into_map()),
        Parsed::Map(m) => UnionMap::from_map(m),
        Parsed::UnionSet(u) => u.as_union_map().clone(),
        Parsed::UnionMap(u) => u,
    }
}

/// Whether a printed value means the same as the expectation: equal text for booleans
/// and integers, equal sets or maps otherwise.
fn same_value(printed: &str, expected: &str) -> bool {
    // `(value, True)`: a value with its exactness flag (`A^+`, `A^*`).
    let pair = |s: &str| {
        let inner = s.strip_prefix('(')?.strip_suffix(')')?;
        let (value, flag) = inner.rsplit_once(", ")?;
        Some((value.to_string(), flag.to_string()))
    };
    if let (Some((pv, pf)), Some((ev, ef))) = (pair(printed), pair(expected)) {
        return pf == ef && same_value(&pv, &ev);
    }
    let is_scalar = |s: &str| s == "True" || s == "False" || s.parse::<i128>().is_ok();
    if is_scalar(expected) || is_scalar(printed) {
        return printed == expected;
    }
    let printed = parse_object(printed)
        .unwrap_or_else(|e| panic!("the printed value `{printed}` does not parse back: {e}"));
    let expected = parse_object(expected).expect("the expectation parses");
    as_union(printed)
        .is_equal(&as_union(expected))
        .expect("comparison succeeds")
}

/// Runs a script that must succeed and checks each printed line.
#[track_caller]
fn check(script: &str, expected: &[&str]) {
    let run = calc_stdin(script);
    assert_eq!(run.stderr, "", "script:\n{script}");
    assert_eq!(run.code, Some(0), "script:\n{script}");
    let lines = run.lines();
    assert_eq!(
        lines.len(),
        expected.len(),
        "script:\n{script}\nprinted:\n{}",
        run.stdout
    );
    for (printed, expected) in lines.iter().zip(expected) {
        assert!(
            same_value(printed, expected),
            "script:\n{script}\nprinted:   {printed}\nexpected:  {expected}"
        );
    }
}

#[test]
fn set_algebra() {
    check(
        "A := { [i] : 0 <= i <= 10 };
         B := { [i] : 5 <= i <= 15 };
         A + B; A * B; A - B; B - A;",
        &[
            "{ [i] : 0 <= i <= 15 }",
            "{ [i] : 5 <= i <= 10 }",
            "{ [i] : 0 <= i <= 4 }",
            "{ [i] : 11 <= i <= 15 }",
        ],
    );
}

#[test]
fn comparisons_print_booleans() {
    check(
        "A := { [i] : 0 <= i <= 10 };
         A * { [i] : i >= 5 } <= A;
         A <= A * { [i] : i >= 5 };
         A = { [i] : 0 <= i <= 5 } + { [i] : 6 <= i <= 10 };
         A < A;
         A * { [i] : i >= 5 } < A;
         is_empty (A * { [i] : i > 10 });
         is_empty A;
         is_empty A = is_empty A;",
        &[
            "True", "False", "True", "False", "True", "True", "False", "True",
        ],
    );
}

#[test]
fn maps_domain_range_inverse_composition() {
    check(
        "M := [N] -> { S[i] -> T[i + 1] : 0 <= i < N };
         dom M; ran M; M^-1; M . M^-1; M^-1^-1 = M;",
        &[
            "[N] -> { S[i] : 0 <= i < N }",
            "[N] -> { T[j] : 1 <= j <= N }",
            "[N] -> { T[j] -> S[j - 1] : 1 <= j <= N }",
            "[N] -> { S[i] -> S[i] : 0 <= i < N }",
            "True",
        ],
    );
}

#[test]
fn image_of_a_set_and_domain_restriction() {
    check(
        "{ [i] : 0 <= i < 5 } . { [i] -> [2i] };
         { [i] -> [i + 1] } * { [i] : 0 <= i < 3 };
         [N] -> { [i] -> [i] } * [N] -> { : N = 4 };",
        &[
            "{ [j] : exists e : j = 2e and 0 <= j <= 8 }",
            "{ [i] -> [i + 1] : 0 <= i < 3 }",
            "[N] -> { [i] -> [i] : N = 4 }",
        ],
    );
}

#[test]
fn deltas_and_params() {
    check(
        "D := [N] -> { S[i, j] -> S[i + 1, j - 1] : 0 <= i < N and 1 <= j < N };
         deltas D;
         params { S[i] : 0 <= i < 0 };
         params [N] -> { [i] : 0 <= i < N };",
        &[
            "[N] -> { S[1, -1] : N >= 2 }",
            "{ : false }",
            "[N] -> { : N >= 1 }",
        ],
    );
}

#[test]
fn transitive_closures() {
    check(
        "A := [N] -> { [i] -> [i + 1] : 0 <= i < N };
         A^+;
         A^*;
         { [i] -> [i + 2] }^+;
         { [i] -> [2i] : 1 <= i <= 20 }^+ ;",
        &[
            "([N] -> { [i] -> [j] : 0 <= i < j <= N }, True)",
            "([N] -> { [i] -> [j] : 0 <= i <= j <= N and N >= 1 }, True)",
            "({ [i] -> [j] : exists e : j = i + 2e and e >= 1 }, True)",
            "({ [i] -> [j] : 1 <= i <= 20 and i < j <= 40 and exists e : j = 2e }, False)",
        ],
    );
}

#[test]
fn lexmin_lexmax() {
    check(
        "lexmin { [i, j] : 0 <= i <= 3 and 2 <= j <= 5 and i + j >= 4 };
         lexmax { [i, j] : 0 <= i <= 3 and 2 <= j <= 5 and i + j <= 6 };
         lexmin [N] -> { [i] : exists e : i = 3e and i >= N };
         lexmax { [i] -> [j] : 0 <= j <= i and 0 <= i <= 5 };",
        &[
            "{ [0, 4] }",
            "{ [3, 3] }",
            "[N] -> { [i] : exists e : i = 3e and N <= i <= N + 2 }",
            "{ [i] -> [i] : 0 <= i <= 5 }",
        ],
    );
}

#[test]
fn card_counts_points() {
    check(
        "card { [i, j] : 0 <= j <= i < 10 };
         card ({ A[i] : 0 <= i < 3 } + { B[i, j] : 0 <= i, j < 2 });
         card { [i] : exists e : i = 3e and 0 <= i <= 30 };
         card { [i] : 1 <= i <= 0 };",
        &["55", "7", "11", "0"],
    );
}

#[test]
fn sample_gives_one_point_or_the_empty_set() {
    let run = calc_stdin(
        "S := { [i, j] : 2 <= i <= 3 and j = 2i };
         P := sample S;
         P <= S; card P; is_empty sample { [i] : 2i = 1 };",
    );
    assert_eq!(run.stderr, "");
    assert_eq!(run.lines(), vec!["True", "1", "True"]);
}

#[test]
fn coalesce_and_complement_keep_the_points() {
    check(
        "A := { [i] : 0 <= i <= 4 } + { [i] : 5 <= i <= 9 };
         coalesce A;
         coalesce A = A;
         complement { [i] : i >= 0 };
         complement complement A = A;",
        &["{ [i] : 0 <= i <= 9 }", "True", "{ [i] : i < 0 }", "True"],
    );
}

#[test]
fn different_spaces_make_unions() {
    check(
        "U := { A[i] : 0 <= i < 2 } + { B[i] : 0 <= i < 3 };
         U;
         U * { A[i] : i >= 1 };
         U - { B[i] };
         { A[i] } * { B[i] };
         dom ({ A[i] -> B[i] } + { C[i] -> D[i, i] });
         { A[i] : 0 <= i < 2 } . ({ A[i] -> B[i + 1] } + { C[i] -> D[i] });",
        &[
            "{ A[i] : 0 <= i < 2; B[i] : 0 <= i < 3 }",
            "{ A[1] }",
            "{ A[i] : 0 <= i < 2 }",
            "{ }",
            "{ A[i]; C[i] }",
            "{ B[i] : 1 <= i <= 2 }",
        ],
    );
}

#[test]
fn parameter_domains_restrict_sets_and_maps() {
    check(
        "P := [N] -> { : N >= 5 };
         P * { [i] : 0 <= i < 3 };
         { [i] : 0 <= i < 3 } * P;
         { [i] -> [i + 1] } * P;
         P - [N] -> { : N >= 6 };
         params [N] -> { [i] : 0 <= i < N } <= [N] -> { : N >= 0 };",
        &[
            "[N] -> { [i] : N >= 5 and 0 <= i < 3 }",
            "[N] -> { [i] : N >= 5 and 0 <= i < 3 }",
            "[N] -> { [i] -> [i + 1] : N >= 5 }",
            "[N] -> { : N = 5 }",
            "True",
        ],
    );
    let run = calc_stdin("[N] -> { : N > 0 } + { [i] };");
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .starts_with("<stdin>:1:20: error: `+` cannot combine a parameter domain with a set"),
        "{}",
        run.stderr
    );
}

#[test]
fn precedence_and_parentheses() {
    check(
        "A := { [i] : 0 <= i <= 10 };
         B := { [i] : 5 <= i <= 15 };
         C := { [i] : 8 <= i <= 20 };
         A + B * C = A + (B * C);
         A - B - C = (A - B) - C;
         (A + B) * C;
         dom { [i] -> [j] : 0 <= i < j < 5 }^-1;",
        &[
            "True",
            "True",
            "{ [i] : 8 <= i <= 15 }",
            "{ [j] : 1 <= j < 5 }",
        ],
    );
}

#[test]
fn comments_and_layout() {
    check(
        "# a comment\nA := { [i] : # comment inside a literal\n 0 <= i <= 2 }; # trailing\n\nA;\n",
        &["{ [i] : 0 <= i <= 2 }"],
    );
}

#[test]
fn errors_report_positions_and_the_script_goes_on() {
    let run = calc_stdin(
        "A := { [i] : 0 <= i <= 3 };\n\
         dom A;\n\
         B := A + ;\n\
         card A;\n\
         Undefined + A;\n\
         A^-1;\n\
         A . A;\n",
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines(), vec!["4"]);
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        errors,
        vec![
            "<stdin>:2:1: error: `dom` needs a map, found a set",
            "<stdin>:3:10: error: expected a set or map literal, a variable or `(`, found `;`",
            "<stdin>:5:1: error: undefined variable `Undefined`",
            "<stdin>:6:2: error: `^-1` needs a map, found a set",
            "<stdin>:7:3: error: `.` needs a map on its right, found a set and a set",
        ]
    );
}

#[test]
fn a_failed_assignment_leaves_the_variable_unchanged() {
    let run = calc_stdin("A := { [i] : i = 1 };\nA := dom A;\ncard A;\n");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines(), vec!["1"]);
    assert!(
        run.stderr.starts_with("<stdin>:2:6: error:"),
        "{}",
        run.stderr
    );
}

#[test]
fn literal_errors_are_located_in_the_script() {
    // The literal starts on line 2, column 6; the bad token `@` is on its second line.
    let run = calc_stdin("A := { [i] };\nB := [N] -> { [i] :\n  0 <= i @ N };\nA;\n");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines(), vec!["{ [i] }"]);
    assert!(
        run.stderr.starts_with("<stdin>:3:10: error: "),
        "{}",
        run.stderr
    );
    let run = calc_stdin("  { [i] : i >= };");
    assert!(
        run.stderr.starts_with("<stdin>:1:16: error: "),
        "{}",
        run.stderr
    );
}

#[test]
fn lexical_errors_resynchronise_at_the_next_semicolon() {
    let run =
        calc_stdin("A := { [i] : i = 2 } ^ 2;\nB := { [i] } @ 3;\ncard { [i] : 0 <= i < 4 };\n");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines(), vec!["4"]);
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{}", run.stderr);
    assert!(errors[0].starts_with("<stdin>:1:22: error: expected `-1`, `+` or `*` after `^`"));
    assert!(errors[1].starts_with("<stdin>:2:14: error: unexpected character `@`"));
}

#[test]
fn type_errors_name_the_operator_and_the_kinds() {
    let run = calc_stdin(
        "S := { [i] : 0 <= i < 3 };\n\
         M := { [i] -> [i] };\n\
         S + M;\n\
         card (S = S);\n\
         complement (S + { T[i] });\n\
         card [N] -> { [i, j] : 0 <= 9967i and 9967i <= 9973j <= N };\n",
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "");
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 4, "{}", run.stderr);
    assert_eq!(
        errors[0],
        "<stdin>:3:3: error: `+` needs two sets or two maps, found a set and a map"
    );
    assert_eq!(
        errors[1],
        "<stdin>:4:1: error: `card` needs a set or a map, found a boolean"
    );
    assert_eq!(
        errors[2],
        "<stdin>:5:1: error: `complement` needs a set or a map in one space, found a union set"
    );
    assert!(
        errors[3].starts_with("<stdin>:6:1: error: ") && errors[3].contains("residue classes"),
        "{}",
        errors[3]
    );
}

#[test]
fn card_of_union_maps_is_one_function_per_domain_space() {
    let run = calc_stdin(
        "M := [N] -> { A[i] -> B[j] : 0 <= j < i < N; C[i] -> D[j] : 0 <= i, j < N; \
         A[k] -> D[j] : 0 <= j < 2 and 0 <= k < N };\n\
         card M;\n\
         card { A[i] -> B[j] : 0 <= j < i; C[i] -> B[j] : 0 <= j < 3 and i = 0 };\n\
         card [N] -> { [[i] -> [j]] -> [k] : 0 <= i < j < N and 0 <= k < i };\n",
    );
    assert_eq!(run.stderr, "");
    assert_eq!(run.code, Some(0));
    let lines: Vec<&str> = run.stdout.lines().collect();
    // A's two members are added (A[k] is A[i] renamed); C is a function of its own.
    assert_eq!(
        lines[0],
        "[N] -> { A[i] -> (2 + i) : 1 <= i < N; A[i] -> 2 : N >= 1 and i = 0; \
         C[i] -> N : 0 <= i < N }",
        "{}",
        run.stdout
    );
    assert_eq!(lines[1], "{ A[i] -> i : i >= 1; C[i] -> 3 : i = 0 }");
    // A wrapped domain stays wrapped.
    assert_eq!(
        lines[2],
        "[N] -> { [[i] -> [j]] -> i : i >= 1 and i < j < N }"
    );
}

#[test]
fn card_of_maps_unbounded_sets_and_rational_sets() {
    let run = calc_stdin(
        "card { [i] -> [j] : 0 <= j < i < 10 };\n\
         card [N] -> { [i] -> [j] : 0 <= j < i < N };\n\
         card { [i] -> [j] : exists e : j = 2e and 0 <= j <= i };\n\
         card { [i] : i >= 0 };\n\
         card { [i, j] : 0 <= i <= j };\n\
         card [N] -> { [i] : i >= N };\n\
         card [N] -> { [i] : 0 <= i and (N <= 0 or i < N) };\n\
         card { [i] -> [j] : j >= i };\n\
         rat: { [i] : 0 <= 2i <= 3 };\n",
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.lines(),
        vec![
            "{ [i] -> i : 1 <= i <= 9 }",
            "[N] -> { [i] -> i : 1 <= i < N }",
            "{ [i] -> (1 + floor((i)/2)) : i >= 0 }",
            "{ infty }",
            "{ infty }",
            "[N] -> { infty }",
            "[N] -> { N : N >= 1; infty : N <= 0 }",
            "{ [i] -> infty }",
        ]
    );
    assert_eq!(
        run.stderr,
        "<stdin>:9:1: error: unsupported: rational sets (`rat:`)\n"
    );
}

#[test]
fn deep_nesting_is_refused_without_crashing() {
    let deep = format!(
        "{}{{ [i] : i = 1 }}{};\n",
        "(".repeat(50_000),
        ")".repeat(50_000)
    );
    let chain = format!(
        "A := {{ [i] : i = 1 }};\n{{ [i] : i = 1 }}{};\n",
        " + A".repeat(50_000)
    );
    let fine = format!(
        "A := {{ [i] : i = 1 }};\ncard ({}A{});\n",
        "(A + ".repeat(90),
        ")".repeat(90)
    );
    let run = calc_stdin(&format!("{deep}{chain}{fine}"));
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines(), vec!["1"]);
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{}", run.stderr);
    assert!(
        errors.iter().all(|e| e.contains("nested too deeply")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_final_semicolon_is_an_error() {
    let run = calc_stdin("{ [i] : i = 1 };\n{ [i] }");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.lines().len(), 1);
    assert_eq!(
        run.stderr,
        "<stdin>:2:8: error: expected `;` or an operator, found the end of the input\n"
    );
}

#[test]
fn scripts_are_read_from_files_and_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("pollen-calc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join("script.iscc");
    std::fs::write(&path, "card { [i] : 0 <= i < 7 };\ndom { [i] };\n").expect("script");
    let run = pollen(&["calc", path.to_str().expect("utf-8 path")]);
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert_eq!(run.stdout, "7\n");
    assert_eq!(
        run.stderr,
        format!(
            "{}:2:1: error: `dom` needs a map, found a set\n",
            path.display()
        )
    );
    assert_eq!(run.code, Some(1));
}

#[test]
fn a_missing_file_is_reported() {
    let run = pollen(&["calc", "/nonexistent/script.iscc"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("cannot read /nonexistent/script.iscc"),
        "{}",
        run.stderr
    );
}

#[test]
fn help_describes_the_commands_and_the_language() {
    let run = pollen(&["--help"]);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.contains("calc"), "{}", run.stdout);
    let run = pollen(&["calc", "--help"]);
    assert_eq!(run.code, Some(0));
    for word in ["X := <expr>;", "lexmin", "^-1", "<=", "line:column"] {
        assert!(run.stdout.contains(word), "no `{word}` in:\n{}", run.stdout);
    }
}

#[test]
fn the_example_scripts_run_without_errors() {
    let dir = workspace_root().join("examples/calc");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/calc")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "iscc"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 4, "{scripts:?}");
    for script in scripts {
        let run = pollen(&["calc", script.to_str().expect("utf-8 path")]);
        assert_eq!(run.stderr, "", "{}", script.display());
        assert_eq!(run.code, Some(0), "{}", script.display());
        for line in run.lines() {
            let scalar = line == "True" || line == "False" || line.parse::<i128>().is_ok();
            assert!(
                scalar || parse_object(line).is_ok(),
                "{}: `{line}` does not parse back",
                script.display()
            );
        }
    }
}

#[test]
fn the_example_scripts_compute_the_documented_answers() {
    let root = workspace_root();
    let run = |name: &str| pollen(&["calc", root.join(name).to_str().expect("utf-8 path")]);

    let deps = run("examples/calc/dependences.iscc");
    let lines = deps.lines();
    assert!(
        same_value(lines[1], "[N] -> { S[1, 0] : N >= 3; S[0, 1] : N >= 3 }"),
        "{}",
        lines[1]
    );
    assert_eq!(&lines[2..], ["False", "True", "True"]);

    let lexmin = run("examples/calc/lexmin.iscc");
    let lines = lexmin.lines();
    assert!(
        same_value(
            lines[0],
            "[T, N] -> { S[t, i] -> S[t - 1, i] : 1 <= t < T and 0 <= i < N }"
        ),
        "{}",
        lines[0]
    );

    let subtract = run("examples/calc/subtract.iscc");
    let lines = subtract.lines();
    assert_eq!(&lines[2..6], ["True", "True", "True", "36"]);
    assert!(same_value(
        lines[6],
        "{ [i] : exists e : 0 <= i <= 30 and (i = 6e + 1 or i = 6e + 5) }"
    ));
    assert_eq!(lines[7], "10");
}

#[test]
fn the_readme_calc_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let mut lines = readme.lines();
    let command = lines
        .find(|l| l.starts_with("$ echo '"))
        .expect("a `$ echo '...' | pollen calc` line");
    let script = command
        .strip_prefix("$ echo '")
        .and_then(|rest| rest.strip_suffix("' | pollen calc"))
        .expect("the form `$ echo '<script>' | pollen calc`");
    let shown = lines.next().expect("the output line");
    let run = calc_stdin(script);
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout.trim_end(), shown);
}
