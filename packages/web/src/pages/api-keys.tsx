/**
 * The API keys (/api-keys): create a key (shown once, with a copy button), the list of the account's
 * keys with when each was last used, and revoke one after asking.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { allPages } from '../components/cursor-list.ts';
import { formatInstant } from '../format.ts';

type ApiKey = components['schemas']['ApiKey'];
type CreatedApiKey = components['schemas']['CreatedApiKey'];

export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const load = useCallback(async () => {
    const loaded = await allPages<ApiKey>(
      (cursor) => api.GET('/v1/api-keys', { params: { query: { limit: 100, ...(cursor && { cursor }) } } }),
      'your API keys',
    );
    if (!loaded.ok) {
      setListError(loaded.message);
      return;
    }
    setListError(null);
    setKeys(loaded.items);
  }, []);

  useEffect(() => {
    document.title = 'API keys · Hindsight';
    void load();
  }, [load]);

  return (
    <section>
      <h1>API keys</h1>
      <p className="lead">
        A key lets a script, the CLI or a strategy pipeline call the API as you: send it in the{' '}
        <code>X-API-Key</code> header.
      </p>
      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          void load();
        }}
      />
      {created && <NewKey created={created} onDismiss={() => setCreated(null)} />}
      <h2>Your keys</h2>
      {listError && (
        <p className="error" role="alert">
          {listError}
        </p>
      )}
      {keys && keys.length === 0 && <p>No keys yet.</p>}
      {keys && keys.length > 0 && <KeyTable keys={keys} onRevoked={load} />}
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/v1/api-keys', { body: { name } });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not create the key.'));
      return;
    }
    setName('');
    onCreated(data.data);
  };

  return (
    <form className="inline" onSubmit={submit}>
      <h2>Create a key</h2>
      <label htmlFor="key-name">Name</label>
      <div className="row">
        <input
          id="key-name"
          value={name}
          maxLength={100}
          placeholder="e.g. laptop CLI"
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function NewKey({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  return (
    <div className="notice" role="status" aria-labelledby="new-key-title">
      <h3 id="new-key-title">Key “{created.name}” created</h3>
      <p>Copy it now: this is the only time it is shown.</p>
      <div className="row">
        <code className="secret" data-testid="new-key-value">
          {created.key}
        </code>
        <CopyButton text={created.key} />
      </div>
      <button type="button" className="secondary" onClick={onDismiss}>
        I have stored it
      </button>
    </div>
  );
}

function KeyTable({ keys, onRevoked }: { keys: ApiKey[]; onRevoked: () => Promise<void> }) {
  const [error, setError] = useState<string | null>(null);

  const revoke = async (prefix: string) => {
    setError(null);
    const { error: failure, response } = await api.DELETE('/v1/api-keys/{prefix}', {
      params: { path: { prefix } },
    });
    if (!response.ok) {
      setError(errorMessage(failure, 'Could not revoke the key.'));
      return;
    }
    await onRevoked();
  };

  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="table-wrap">
        <table className="keys-table">
          <thead>
            <tr>
              <th scope="col">Prefix</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.prefix}>
                <td>
                  <code>{key.prefix}</code>
                </td>
                <td>{key.name}</td>
                <td>{formatInstant(key.createdAt)}</td>
                <td>{key.lastUsedAt ? formatInstant(key.lastUsedAt) : 'Never'}</td>
                <td className="actions">
                  <ConfirmButton
                    label="Revoke"
                    ariaLabel={`Revoke key ${key.prefix} (${key.name})`}
                    question={`Revoke ${key.prefix}?`}
                    confirmLabel="Yes, revoke"
                    onConfirm={() => revoke(key.prefix)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
