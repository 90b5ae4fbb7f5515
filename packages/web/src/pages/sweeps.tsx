// Being built (issue 21): replaced by the page itself.
export function SweepsPage() {
  return (
    <section>
      <h1>SweepsPage</h1>
    </section>
  );
}
