// Being built (issue 21): replaced by the page itself.
export function StrategiesPage() {
  return (
    <section>
      <h1>StrategiesPage</h1>
    </section>
  );
}
