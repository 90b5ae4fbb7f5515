/**
 * The trading-costs part of the configuration editor: commission (none, or basis points of notional),
 * slippage (base, size impact, cap; all three or none) and funding (disabled, or daily rates with the
 * weekday multipliers and day-count basis). Values are decimal strings, kept exactly as typed.
 */
import type { ReactNode } from 'react';
import { type ConfigForm, ids, WEEKDAYS } from './config-form-model.ts';
import { formatPath } from './config-issues.ts';
import { FieldError, fieldProps } from './field-error.tsx';

type CostFields = Pick<
  ConfigForm,
  | 'commissionModel'
  | 'feeRateBps'
  | 'baseSlippageBps'
  | 'sizeImpactBpsPer100k'
  | 'maxSlippageBps'
  | 'fundingModel'
  | 'longRate'
  | 'shortRate'
  | 'dayMultipliers'
  | 'dayCountBasis'
>;

interface Props {
  form: CostFields;
  onChange: (change: Partial<CostFields>) => void;
  errors: Map<string, string[]>;
}

export function ConfigCosts({ form, onChange, errors }: Props) {
  const text = (
    id: string,
    path: string,
    label: string,
    value: string,
    set: (v: string) => void,
    hint?: string,
  ) => (
    <TextField id={id} label={label} value={value} onChange={set} messages={errors.get(path)} hint={hint} />
  );
  const commissionErrors = [...(errors.get('costs') ?? []), ...(errors.get('costs.commission') ?? [])];
  const slippageErrors = errors.get('costs.slippage');
  const fundingErrors = errors.get('costs.funding');

  return (
    <fieldset className="config-section">
      <legend>Costs</legend>
      <p className="config-hint">Each part defaults to zero: with none, fills pay only the spread.</p>
      <div className="config-grid">
        <div className="config-field">
          <label htmlFor={ids.commissionModel}>Commission</label>
          <select
            id={ids.commissionModel}
            value={form.commissionModel}
            onChange={(e) => onChange({ commissionModel: e.target.value as CostFields['commissionModel'] })}
            {...fieldProps(ids.commissionModel, commissionErrors)}
          >
            <option value="zero">None</option>
            <option value="bps_of_notional">Basis points of notional</option>
          </select>
          <FieldError fieldId={ids.commissionModel} messages={commissionErrors} />
        </div>
        {form.commissionModel === 'bps_of_notional' &&
          text(
            ids.feeRateBps,
            'costs.commission.fee_rate_bps',
            'Fee (bps of notional)',
            form.feeRateBps,
            (v) => onChange({ feeRateBps: v }),
            'Charged at entry and at exit; 0 to under 10000.',
          )}
      </div>

      <fieldset className="config-subgroup">
        <legend>Slippage (basis points)</legend>
        <p className="config-hint">
          Base + notional / 100000 × size impact, capped by the maximum when it is above 0. Leave all three
          empty for none.
        </p>
        <div className="config-grid">
          <TextField
            id={ids.baseSlippageBps}
            label="Base slippage (bps)"
            value={form.baseSlippageBps}
            onChange={(v) => onChange({ baseSlippageBps: v })}
            messages={[...(slippageErrors ?? []), ...(errors.get('costs.slippage.base_slippage_bps') ?? [])]}
          />
          {text(
            ids.sizeImpactBpsPer100k,
            'costs.slippage.size_impact_bps_per_100k',
            'Size impact (bps per 100k)',
            form.sizeImpactBpsPer100k,
            (v) => onChange({ sizeImpactBpsPer100k: v }),
          )}
          {text(
            ids.maxSlippageBps,
            'costs.slippage.max_slippage_bps',
            'Maximum slippage (bps)',
            form.maxSlippageBps,
            (v) => onChange({ maxSlippageBps: v }),
          )}
        </div>
      </fieldset>

      <fieldset className="config-subgroup">
        <legend>Funding</legend>
        <div className="config-grid">
          <div className="config-field">
            <label htmlFor={ids.fundingModel}>Funding model</label>
            <select
              id={ids.fundingModel}
              value={form.fundingModel}
              onChange={(e) => onChange({ fundingModel: e.target.value as CostFields['fundingModel'] })}
              {...fieldProps(ids.fundingModel, fundingErrors)}
            >
              <option value="disabled">Disabled</option>
              <option value="daily">Daily rollover</option>
            </select>
            <FieldError fieldId={ids.fundingModel} messages={fundingErrors} />
          </div>
          {form.fundingModel === 'daily' && (
            <>
              {text(
                ids.longRate,
                'costs.funding.long_rate',
                'Long rate (annual)',
                form.longRate,
                (v) => onChange({ longRate: v }),
                'Negative debits, positive credits; e.g. -0.05.',
              )}
              {text(ids.shortRate, 'costs.funding.short_rate', 'Short rate (annual)', form.shortRate, (v) =>
                onChange({ shortRate: v }),
              )}
              <div className="config-field">
                <label htmlFor={ids.dayCountBasis}>Day-count basis</label>
                <select
                  id={ids.dayCountBasis}
                  value={form.dayCountBasis}
                  onChange={(e) => onChange({ dayCountBasis: e.target.value as CostFields['dayCountBasis'] })}
                  {...fieldProps(ids.dayCountBasis, errors.get('costs.funding.day_count_basis'))}
                >
                  <option value="365">365 days</option>
                  <option value="360">360 days</option>
                </select>
                <FieldError
                  fieldId={ids.dayCountBasis}
                  messages={errors.get('costs.funding.day_count_basis')}
                />
              </div>
            </>
          )}
        </div>
        {form.fundingModel === 'daily' && (
          <fieldset className="config-days">
            <legend>Days charged per rollover (New York weekday)</legend>
            <div className="config-days-grid">
              {WEEKDAYS.map((day, index) => (
                <TextField
                  key={day}
                  id={ids.dayMultiplier(index)}
                  label={day}
                  value={form.dayMultipliers[index] ?? ''}
                  onChange={(v) =>
                    onChange({ dayMultipliers: form.dayMultipliers.map((d, i) => (i === index ? v : d)) })
                  }
                  messages={[
                    ...(index === 0 ? (errors.get('costs.funding.day_multipliers') ?? []) : []),
                    ...(errors.get(formatPath(['costs', 'funding', 'day_multipliers', index])) ?? []),
                  ]}
                  inputMode="numeric"
                />
              ))}
            </div>
          </fieldset>
        )}
      </fieldset>
    </fieldset>
  );
}

interface TextFieldProps {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  messages: string[] | undefined;
  hint?: string | undefined;
  inputMode?: 'decimal' | 'numeric';
}

/** A labelled text input with its hint and the API's errors; decimals are typed as text, never coerced. */
export function TextField({
  id,
  label,
  value,
  onChange,
  messages,
  hint,
  inputMode = 'decimal',
}: TextFieldProps) {
  const invalid = messages !== undefined && messages.length > 0;
  const describedBy = [hint && `${id}-hint`, invalid && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className="config-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        inputMode={inputMode}
        onChange={(e) => onChange(e.target.value)}
        {...(invalid && { 'aria-invalid': true })}
        {...(describedBy && { 'aria-describedby': describedBy })}
      />
      {hint && (
        <p className="config-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError fieldId={id} messages={messages} />
    </div>
  );
}
