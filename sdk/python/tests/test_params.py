"""Parameters: environment variable names, parsing by the default's type, errors naming the variable."""

import unittest

from hindsight import ParamError, Strategy, env_name, read_params

DECLARED = {"fast": 10, "ratio": 0.5, "quantity": "0.01", "shortOnly": False, "stopLoss": 2}


class ParamsTest(unittest.TestCase):
    def test_env_names_are_upper_snake_case(self) -> None:
        self.assertEqual(env_name("fast"), "FAST")
        self.assertEqual(env_name("stopLoss"), "STOP_LOSS")
        self.assertEqual(env_name("stop_loss"), "STOP_LOSS")
        self.assertEqual(env_name("maxATRPeriod"), "MAX_ATR_PERIOD")
        self.assertEqual(env_name("sma2Fast"), "SMA2_FAST")

    def test_defaults_when_unset(self) -> None:
        self.assertEqual(read_params(DECLARED, {}), DECLARED)

    def test_values_parse_as_the_defaults_type(self) -> None:
        env = {"FAST": "5", "RATIO": "0.25", "QUANTITY": "0.5", "SHORT_ONLY": "TRUE", "STOP_LOSS": "-3"}
        params = read_params(DECLARED, env)
        self.assertEqual(params, {"fast": 5, "ratio": 0.25, "quantity": "0.5", "shortOnly": True, "stopLoss": -3})
        self.assertIs(type(params["fast"]), int)
        self.assertEqual(read_params({"on": True}, {"ON": "0"}), {"on": False})
        self.assertEqual(read_params({"x": 1.0}, {"X": "2"}), {"x": 2.0})

    def test_bad_values_name_the_variable(self) -> None:
        bad = [({"FAST": "ten"}, "FAST"), ({"FAST": "5.5"}, "FAST"), ({"FAST": ""}, "FAST"),
               ({"RATIO": "half"}, "RATIO"), ({"SHORT_ONLY": "maybe"}, "SHORT_ONLY")]
        for env, variable in bad:
            with self.subTest(env=env), self.assertRaises(ParamError) as caught:
                read_params(DECLARED, env)
            self.assertEqual(caught.exception.variable, variable)
            self.assertTrue(str(caught.exception).startswith(f"{variable}: "))

    def test_a_strategy_reads_its_params_when_instantiated(self) -> None:
        class Sma(Strategy):
            params = {"fast": 10, "slow": 30}

        import os

        os.environ["SLOW"] = "40"
        try:
            self.assertEqual(Sma().params, {"fast": 10, "slow": 40})
        finally:
            del os.environ["SLOW"]
        self.assertEqual(Sma.params, {"fast": 10, "slow": 30}, "the declaration is left alone")


if __name__ == "__main__":
    unittest.main()
