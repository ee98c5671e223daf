"""JUnit XML as CI servers read it: the one serializer of the trace checker's, the probe's
and the audit's reports, which quote file names, messages and trace contents as they are."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

# What XML 1.0 cannot hold at all, even escaped: most control characters, lone surrogates,
# U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _shown(text: str) -> str:
    """`text` with each character XML cannot hold written as its code (`\\x07`)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def dumps(root: ET.Element) -> str:
    """The document of `root`, indented, with a declaration and a final newline."""
    for element in root.iter():
        element.text = _shown(element.text) if element.text else element.text
        element.tail = _shown(element.tail) if element.tail else element.tail
        for key, value in element.attrib.items():
            element.set(key, _shown(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
