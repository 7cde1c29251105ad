// The Copy button beside a secret shown once (progressive enhancement: without this script the
// button stays hidden and the secret is still selectable in its read-only field). The button names
// its field in data-copy; what happened is said in the field's status line.

for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById(`${button.dataset.copy}-copied`);
  if (!(field instanceof HTMLInputElement) || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      if (status) status.textContent = 'Copied.';
    } catch {
      field.select();
      if (status)
        status.textContent = 'The browser did not allow copying: the text is selected, copy it with the keyboard.';
    }
  });
}
