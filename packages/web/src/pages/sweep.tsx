// Being built (issue 21): replaced by the page itself.
export function SweepPage() {
  return (
    <section>
      <h1>SweepPage</h1>
    </section>
  );
}
