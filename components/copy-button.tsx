"use client";

import { useState } from "react";
import { Button } from "./ui/button";

/** Copies `value` to the clipboard and says so (politely, for screen readers). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied("idle"), 2000);
  }
  return (
    <Button variant="secondary" onClick={copy} aria-label={label}>
      <span aria-live="polite">
        {copied === "copied" ? "Copied" : copied === "failed" ? "Select and copy" : label}
      </span>
    </Button>
  );
}
