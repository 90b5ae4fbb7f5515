// Being built (issue 21): replaced by the page itself.
export function RunPage() {
  return (
    <section>
      <h1>RunPage</h1>
    </section>
  );
}
