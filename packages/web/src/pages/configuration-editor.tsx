// Being built (issue 21): replaced by the page itself.
export function ConfigurationEditorPage() {
  return (
    <section>
      <h1>ConfigurationEditorPage</h1>
    </section>
  );
}
