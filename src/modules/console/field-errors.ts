// The API's refusal of a field, in a form's words. The API starts a field's message with the
// field's JSON path ("phone_number must match …", "to.3 must be …"): a form says the field's label
// instead ("The phone number must match …"), and an item of a list by its line ("Line 4: must be …").
// Every console form that shows an operation's field errors says them through this.

/** `labels` maps a form's API field names to how the form names them ("The phone number"). */
export function sayFieldError(field: string, message: string, labels: Readonly<Record<string, string>>): string {
  const [name, index] = field.split(/[./]/);
  const rest = message.startsWith(`${field} `) ? message.slice(field.length + 1) : null;
  if (index !== undefined && /^\d+$/.test(index)) return `Line ${Number(index) + 1}: ${rest ?? message}`;
  if (rest !== null) return `${Object.hasOwn(labels, name) ? labels[name] : 'This field'} ${rest}`;
  return message.charAt(0).toUpperCase() + message.slice(1);
}
