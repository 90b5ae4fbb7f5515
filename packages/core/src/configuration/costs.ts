import { z } from 'zod';
import { Dec, decimalStringPattern, toDecimalString } from '../decimal.ts';
import { describeValue, expecting, mustBe, strictObject, typeMessage } from './messages.ts';

/** Funding defaults (spec: Funding daily model); applied by the engine, not written into the config. */
export const DEFAULT_DAY_MULTIPLIERS = [1, 1, 3, 1, 1, 0, 0] as const;
export const DEFAULT_DAY_COUNT_BASIS = 365;

/**
 * A decision-23 decimal string within a range, canonicalised (decision 37: `"007.50"` becomes `"7.5"`,
 * `"-0"` becomes `"0"`), so a configuration stores and echoes what we would write ourselves. The range
 * is judged with decimal.js, never floats, so "9999.99999999999999999" is still below 10000. The regex
 * is kept as a separate check so that the OpenAPI document can publish it as the `pattern`.
 */
function decimalString(rule: string, inRange: (value: Dec) => boolean, description: string, example: string) {
  const expected = `a decimal string ${rule}`;
  return z
    .string({ error: expecting(`${expected} (e.g. "${example}")`) })
    .regex(decimalStringPattern, {
      abort: true,
      error: (issue) =>
        mustBe(`${expected}, written like "${example}" (no exponent, no "+", no spaces)`, issue.input),
    })
    .refine((value) => inRange(new Dec(value)), { error: (issue) => mustBe(expected, issue.input) })
    .overwrite(toDecimalString)
    .meta({ description, examples: [example] });
}

const bps = (description: string) =>
  decimalString('>= 0 and < 10000', (value) => value.gte(0) && value.lt(10000), description, '2.5');
const nonNegative = (description: string, example: string) =>
  decimalString('>= 0', (value) => value.gte(0), description, example);
const annualRate = (description: string) =>
  decimalString('with absolute value <= 1', (value) => value.abs().lte(1), description, '-0.05');

/**
 * A union tagged by `model` (decision 23: the tag is required). The error names the accepted models,
 * both when `model` is missing and when it is unknown; zod reports those at the `model` path.
 */
function taggedByModel<const Options extends readonly [z.ZodObject, z.ZodObject, ...z.ZodObject[]]>(
  models: readonly string[],
  options: Options,
) {
  const list = models.map((model) => JSON.stringify(model)).join(' or ');
  return z.discriminatedUnion('model', options, {
    error: (issue) => {
      if (issue.code !== 'invalid_union')
        return typeMessage(`an object tagged by "model" (${list})`, issue.input);
      const input = issue.input;
      const model =
        typeof input === 'object' && input !== null ? (input as { model?: unknown }).model : undefined;
      return model === undefined ? `is required: ${list}` : `${typeMessage(list, model)}`;
    },
  });
}

export const commissionSchema = taggedByModel(
  ['zero', 'bps_of_notional'],
  [
    strictObject({ model: z.literal('zero') }, 'a commission object').meta({ description: 'No commission.' }),
    strictObject(
      {
        model: z.literal('bps_of_notional'),
        fee_rate_bps: bps('Fee in basis points of notional, charged at entry and at exit. >= 0 and < 10000.'),
      },
      'a commission object',
    ).meta({ description: 'Charge = notional x fee_rate_bps / 10000, once at entry and once at exit.' }),
  ],
).meta({ description: 'Commission model, tagged by `model`. Default `zero`.' });

export const slippageSchema = strictObject(
  {
    base_slippage_bps: nonNegative('Slippage applied to every fill, in basis points. >= 0.', '1'),
    size_impact_bps_per_100k: nonNegative('Extra basis points per 100000 of notional (USD). >= 0.', '0.5'),
    max_slippage_bps: bps('Cap on slippage in basis points, applied only when > 0. >= 0 and < 10000.'),
  },
  'a slippage object with base_slippage_bps, size_impact_bps_per_100k and max_slippage_bps',
).meta({
  description:
    'slippage_bps = base_slippage_bps + (notional / 100000) x size_impact_bps_per_100k, capped by max_slippage_bps. ' +
    'All three fields are required when slippage is supplied; omitted slippage means 0.',
});

const dayMultiplier = z
  .number({ error: expecting('an integer >= 0') })
  .int({ error: (issue) => mustBe('an integer >= 0', issue.input) })
  .min(0, { error: (issue) => mustBe('an integer >= 0', issue.input) });

export const fundingSchema = taggedByModel(
  ['disabled', 'daily'],
  [
    strictObject({ model: z.literal('disabled') }, 'a funding object').meta({ description: 'No funding.' }),
    strictObject(
      {
        model: z.literal('daily'),
        long_rate: annualRate('Annual rate for longs; negative debits, positive credits. abs <= 1.'),
        short_rate: annualRate('Annual rate for shorts; negative debits, positive credits. abs <= 1.'),
        day_multipliers: z
          .array(dayMultiplier, { error: expecting('an array of 7 integers >= 0 (Monday to Sunday)') })
          .length(7, {
            error: (issue) =>
              `must list exactly 7 integers (Monday to Sunday), got ${describeValue(issue.input)}`,
          })
          .optional()
          .meta({
            description: `Days charged per rollover by New York weekday, Monday first. Default [${DEFAULT_DAY_MULTIPLIERS.join(',')}].`,
            examples: [[...DEFAULT_DAY_MULTIPLIERS]],
          }),
        day_count_basis: z
          .literal([360, 365], { error: expecting('360 or 365') })
          .optional()
          .meta({ description: `Day-count basis of the annual rates. Default ${DEFAULT_DAY_COUNT_BASIS}.` }),
      },
      'a funding object',
    ).meta({
      description:
        'Charged at each 17:00 America/New_York rollover: position_value x rate x days_charged / day_count_basis.',
    }),
  ],
).meta({ description: 'Funding model, tagged by `model`. Default `disabled`.' });

export const costsSchema = strictObject(
  {
    commission: commissionSchema.optional(),
    slippage: slippageSchema.optional(),
    funding: fundingSchema.optional(),
  },
  'a costs object with optional commission, slippage and funding',
).meta({
  description:
    'Trading costs (snake_case keys). Each part defaults to zero; omitted costs give a spread-only run.',
});

export type Costs = z.output<typeof costsSchema>;
export type Commission = z.output<typeof commissionSchema>;
export type Slippage = z.output<typeof slippageSchema>;
export type Funding = z.output<typeof fundingSchema>;
