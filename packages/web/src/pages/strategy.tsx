// Being built (issue 21): replaced by the page itself.
export function StrategyPage() {
  return (
    <section>
      <h1>StrategyPage</h1>
    </section>
  );
}
