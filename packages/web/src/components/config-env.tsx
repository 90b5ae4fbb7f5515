/**
 * The environment-variable rows of the configuration editor: name and value per row, add and remove.
 * The API names a variable's problem by its key (`env.MY_KEY`, `env["bad key"]`), so each row's error is
 * found by the path its current name makes.
 */
import { type EnvRow, ids, newKey } from './config-form-model.ts';
import { formatPath } from './config-issues.ts';
import { FieldError, fieldErrorId, fieldProps } from './field-error.tsx';

interface Props {
  rows: EnvRow[];
  onChange: (rows: EnvRow[]) => void;
  errors: Map<string, string[]>;
}

export function ConfigEnv({ rows, onChange, errors }: Props) {
  const update = (index: number, change: Partial<EnvRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const listErrors = errors.get('env');

  return (
    <fieldset className="config-section">
      <legend>Environment variables</legend>
      <p className="config-hint">Passed to the strategy. Stored in plain text: put no secrets here.</p>
      {rows.map((row, index) => {
        const nameId = ids.envName(row.key);
        const valueId = ids.envValue(row.key);
        const messages = errors.get(formatPath(['env', row.name]));
        const invalid =
          messages && messages.length > 0
            ? { 'aria-invalid': true as const, 'aria-describedby': fieldErrorId(nameId) }
            : {};
        return (
          <div className="config-env-row" key={row.key}>
            <div className="config-field">
              <label htmlFor={nameId}>Variable {index + 1} key</label>
              <input
                id={nameId}
                value={row.name}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => update(index, { name: e.target.value })}
                {...invalid}
              />
            </div>
            <div className="config-field">
              <label htmlFor={valueId}>Variable {index + 1} value</label>
              <input
                id={valueId}
                value={row.value}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => update(index, { value: e.target.value })}
                {...invalid}
              />
            </div>
            <button
              type="button"
              className="secondary"
              aria-label={`Remove variable ${index + 1}${row.name ? ` (${row.name})` : ''}`}
              onClick={() => onChange(rows.filter((_, i) => i !== index))}
            >
              Remove
            </button>
            <FieldError fieldId={nameId} messages={messages} />
          </div>
        );
      })}
      <div className="row">
        <button
          type="button"
          className="secondary"
          id={ids.addEnv}
          {...fieldProps(ids.addEnv, listErrors)}
          onClick={() => onChange([...rows, { key: newKey(), name: '', value: '' }])}
        >
          Add variable
        </button>
      </div>
      <FieldError fieldId={ids.addEnv} messages={listErrors} />
    </fieldset>
  );
}
