// Being built (issue 21): replaced by the page itself.
export function ConfigurationsPage() {
  return (
    <section>
      <h1>ConfigurationsPage</h1>
    </section>
  );
}
