// Handing a file to the browser as a download: a hidden <a download> on a blob URL.

/** downloadBlob hands blob to the browser as a file download named fileName. */
export function downloadBlob(fileName: string, blob: Blob, doc: Document = document): void {
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.hidden = true;
  doc.body.append(a);
  a.click();
  a.remove();
  // The download has its own reference to the blob once it started; the
  // delay only spares a slow browser from finding the URL gone.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
