// Being built (issue 21): replaced by the page itself.
export function ComparePage() {
  return (
    <section>
      <h1>ComparePage</h1>
    </section>
  );
}
