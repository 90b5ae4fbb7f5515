"""decimal_string: canonical decimal strings from str, int and Decimal; floats refused."""

import unittest
from decimal import Decimal

from hindsight import decimal_string


class DecimalStringTest(unittest.TestCase):
    def test_canonical_rendering(self) -> None:
        cases = {
            "0.01": "0.01",
            "0.0100": "0.01",
            "1.50": "1.5",
            "100": "100",
            "007": "7",
            "-0": "0",
            "-0.000": "0",
            "  2.5 ": "2.5",
            "1E+2": "100",
            "1.5e-7": "0.00000015",
            "-12.3400": "-12.34",
            "123456789012345678901234567890.000000000000000000000000000001": "123456789012345678901234567890.000000000000000000000000000001",
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertEqual(decimal_string(text), expected)
        self.assertEqual(decimal_string(3), "3")
        self.assertEqual(decimal_string(-4), "-4")
        self.assertEqual(decimal_string(0), "0")
        self.assertEqual(decimal_string(Decimal("0.0100") * 2), "0.02")
        self.assertEqual(decimal_string(Decimal("-0E-8")), "0")
        self.assertEqual(decimal_string(Decimal("2.5E+3")), "2500")

    def test_floats_are_refused_naming_the_field(self) -> None:
        with self.assertRaisesRegex(TypeError, r"^quantity: the float 0\.1 is refused"):
            decimal_string(0.1, "quantity")
        with self.assertRaises(TypeError):
            decimal_string(True)
        with self.assertRaises(TypeError):
            decimal_string(None)

    def test_non_numbers_are_refused(self) -> None:
        for text in ("", "abc", "NaN", "Infinity", "1.2.3"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                decimal_string(text)


if __name__ == "__main__":
    unittest.main()
