/**
 * The error text under a form field. The field points at it with `aria-describedby={fieldErrorId(id)}`
 * and carries `aria-invalid`, so a screen reader reads the message with the field; `fieldProps` gives
 * both attributes at once.
 */

export const fieldErrorId = (fieldId: string): string => `${fieldId}-error`;

/** The ARIA attributes of a field with these messages (none when it has none). */
export function fieldProps(fieldId: string, messages: readonly string[] | undefined) {
  return messages && messages.length > 0
    ? { 'aria-invalid': true as const, 'aria-describedby': fieldErrorId(fieldId) }
    : {};
}

export function FieldError({
  fieldId,
  messages,
}: {
  fieldId: string;
  messages: readonly string[] | undefined;
}) {
  if (!messages || messages.length === 0) return null;
  return (
    <p className="field-error" id={fieldErrorId(fieldId)}>
      {messages.join(' ')}
    </p>
  );
}
