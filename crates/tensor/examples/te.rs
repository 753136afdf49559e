//! Prints the C program of a `.te` file (development aid).
fn main() {
    let path = std::env::args().nth(1).expect("a .te file");
    let text = std::fs::read_to_string(&path).expect("readable");
    match pollen_tensor::parse(&text) {
        Ok(p) => print!("{}", pollen_tensor::to_c(&p, "op")),
        Err(e) => eprintln!("{path}:{e}"),
    }
}
