/**
 * Text for an HTML page, attribute values included: the five characters
 * that can end a text node or a quoted attribute become numeric references.
 *
 * @example escapeHtml('<b>"hi"</b>') // '&#60;b&#62;&#34;hi&#34;&#60;/b&#62;'
 */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
