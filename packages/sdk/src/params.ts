import { StrategyDefinitionError } from './errors.ts';

/**
 * A strategy's parameters: declared with their defaults, whose types they take (number, string,
 * boolean), and set per run by the environment variable of the name in upper snake case (`fast`:
 * `FAST`, `stopLoss`: `STOP_LOSS`), so that a batch's `envGrid` sweeps them with no code, or by
 * explicit overrides (`hindsight backtest --param fast=5`).
 */
export type ParamValue = number | string | boolean;
export type ParamDefaults = Record<string, ParamValue>;

/** The parameters' types as declared: a number default gives a number, and so on. */
export type Params<P extends ParamDefaults> = {
  readonly [K in keyof P]: P[K] extends number ? number : P[K] extends boolean ? boolean : string;
};

/** `fast` -> `FAST`, `stopLoss` -> `STOP_LOSS`, `slow_period` -> `SLOW_PERIOD`. */
export function envName(param: string): string {
  return param
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/**
 * The parameters of one run: each default, replaced by its environment variable when set, then by
 * an override. Throws StrategyDefinitionError naming the variable or parameter whose value does not
 * parse, or an override that names no declared parameter.
 */
export function resolveParams<P extends ParamDefaults>(
  defaults: P,
  env: Readonly<Record<string, string | undefined>> = {},
  overrides: Readonly<Record<string, string>> = {},
): Params<P> {
  const declared = Object.keys(defaults);
  const unknown = Object.keys(overrides).filter((name) => !(name in defaults));
  if (unknown.length > 0) {
    const list = declared.length > 0 ? declared.join(', ') : 'none';
    throw new StrategyDefinitionError(
      `the strategy declares no parameter ${unknown.join(', ')}; its parameters: ${list}`,
    );
  }
  const params: Record<string, ParamValue> = {};
  for (const name of declared) {
    const fallback = defaults[name] as ParamValue;
    const variable = envName(name);
    const override = overrides[name];
    const envText = env[variable];
    if (override !== undefined) params[name] = parseParam(fallback, override, `--param ${name}`);
    else if (envText !== undefined && envText !== '') params[name] = parseParam(fallback, envText, variable);
    else params[name] = fallback;
  }
  return Object.freeze(params) as Params<P>;
}

function parseParam(fallback: ParamValue, text: string, source: string): ParamValue {
  if (typeof fallback === 'number') {
    const value = text.trim() === '' ? Number.NaN : Number(text);
    if (!Number.isFinite(value))
      throw new StrategyDefinitionError(`${source}: ${JSON.stringify(text)} is not a number`);
    if (Number.isInteger(fallback) && !Number.isInteger(value)) {
      throw new StrategyDefinitionError(`${source}: ${JSON.stringify(text)} is not a whole number`);
    }
    return value;
  }
  if (typeof fallback === 'boolean') {
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    throw new StrategyDefinitionError(`${source}: ${JSON.stringify(text)} is not true or false`);
  }
  return text;
}
