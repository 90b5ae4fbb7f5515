// Being built (issue 21): replaced by the page itself.
export function CatalogPage() {
  return (
    <section>
      <h1>CatalogPage</h1>
    </section>
  );
}
