"use client";

import { useState } from "react";
import { LinkBankFlow } from "./link-bank-flow";
import { Button } from "./ui/button";

/** "Link a bank": opens the sandbox connect flow in place. */
export function LinkBankPanel({ institutions }: { institutions: { id: string; name: string }[] }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return <Button onClick={() => setOpen(true)}>Link a bank</Button>;
  }
  return <LinkBankFlow institutions={institutions} onDone={() => setOpen(false)} />;
}
