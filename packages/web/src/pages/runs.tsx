// Being built (issue 21): replaced by the page itself.
export function RunsPage() {
  return (
    <section>
      <h1>RunsPage</h1>
    </section>
  );
}
