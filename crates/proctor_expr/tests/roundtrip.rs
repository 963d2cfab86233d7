//! Properties over arbitrary input: parsing never panics, and whatever
//! parses prints in a canonical form that parses back to the same
//! expression and prints the same again.

use proctor_expr::Expression;
use proptest::prelude::*;

/// Inputs made of the pieces of the grammar and some characters around it.
fn input() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_owned()),
        Just("b1".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        Just("not ".to_owned()),
        Just(" and ".to_owned()),
        Just(" or ".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("=".to_owned()),
        Just(",".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("x=1".to_owned()),
        Just("m(k='v', n=-2)".to_owned()),
        Just("None".to_owned()),
        "[-:+./\\[\\]\\\\]".prop_map(String::from),
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn parsed_input_round_trips(input in input()) {
        if let Ok(expr) = Expression::parse(&input) {
            let printed = expr.to_string();
            let reparsed = Expression::parse(&printed);
            prop_assert_eq!(reparsed.as_ref(), Ok(&expr), "printed as {:?}", printed);
            prop_assert_eq!(reparsed.map(|e| e.to_string()), Ok(printed));
        }
    }

    #[test]
    fn errors_point_inside_the_input(input in "\\PC{0,24}") {
        if let Err(error) = Expression::parse(&input) {
            prop_assert!(error.offset <= input.len());
            prop_assert!(input.is_char_boundary(error.offset));
            prop_assert_eq!(error.column, input[..error.offset].chars().count() + 1);
        }
    }
}
