"""A short scenario through the Python client openapi-python-client generates from the served
document (`cargo xtask clients`): locales retrieve, keywords persist then retrieve, a glossary
entry persist, a 404 read as the documented error body, classes retrieve and channels retrieve,
against a server on the demo catalogue.

python scenario.py <base URL> <token>, with the wheel `cargo xtask clients` builds installed
"""

import sys
import time

from core_interface_client import AuthenticatedClient
from core_interface_client.api.cm import channels_retrieve
from core_interface_client.api.common import (
    glossary_entries_persist,
    keywords_persist,
    keywords_retrieve,
    locales_retrieve,
)
from core_interface_client.api.pim import classes_retrieve
from core_interface_client.models import (
    ChannelRequestDto,
    ClassificationRequest,
    GlossaryEntriesPersistRequest,
    KeywordRequest,
    KeywordsPersistRequest,
    LocaleRequest,
    PimType,
    ResponseType,
)

base, token = sys.argv[1:3]
# The installed wheel, not a generated folder, is what the scenario runs.
if "site-packages" not in sys.modules[AuthenticatedClient.__module__].__file__:
    raise SystemExit(f"the client is not the installed wheel: {sys.modules[AuthenticatedClient.__module__].__file__}")


def check(condition, message):
    if not condition:
        raise SystemExit(f"python client scenario failed: {message}")


client = AuthenticatedClient(base_url=base, token=token)
steps = []

locales = locales_retrieve.sync(client=client, body=LocaleRequest.from_dict({"mode": "ALL"}))
check(isinstance(locales, PimType), f"locales retrieve answered {locales!r}")
tids = [locale.tid for locale in locales.locales.locale]
check("de_DE" in tids, f"locales: {tids}")
steps.append(f"locales retrieve: {len(tids)} locales")

name = f"Python {time.time_ns()}"
persisted = keywords_persist.sync(
    client=client,
    body=KeywordsPersistRequest.from_dict(
        {"kwds": {"kwd": [{"parentPath": "/Season", "name": {"itm": [{"value": name}]}}]}}
    ),
)
check(isinstance(persisted, PimType), f"keywords persist answered {persisted!r}")
record = persisted.responses.response[0]
check(record.status.value == "SUCCESS", f"keywords persist: {record!r}")
retrieved = keywords_retrieve.sync(
    client=client, body=KeywordRequest.from_dict({"path": "/Season", "level": -1})
)
paths = [kwd.path for kwd in retrieved.kwds.kwd]
check(f"/Season/{name}" in paths, f"keywords retrieve: {paths}")
steps.append(f"keywords persist then retrieve: /Season/{name}")

entries = glossary_entries_persist.sync(
    client=client,
    body=GlossaryEntriesPersistRequest.from_dict(
        {
            "glossaryEntries": {
                "glossaryEntry": [
                    {
                        "parentTid": "GL-TEXTILES",
                        "loc": "en_GB",
                        "type": "term",
                        "meta": {"itm": [{"key": "value", "value": name}]},
                    }
                ]
            }
        }
    ),
)
record = entries.responses.response[0]
check(
    record.description == "The glossary entry has been created successfully",
    f"glossary entry persist: {record!r}",
)
steps.append("glossary entry persist: created")

missing = keywords_retrieve.sync_detailed(
    client=client, body=KeywordRequest.from_dict({"path": "/Nowhere"})
)
check(missing.status_code == 404, f"an unknown path answered {missing.status_code}")
error = missing.parsed
check(isinstance(error, ResponseType), f"the 404 body is {error!r}")
check(error.status.value == "ERROR" and error.description == "Not found", f"{error!r}")
codes = [itm.value for issue in error.issues for itm in issue.itm if itm.key == "code"]
check(codes == ["1006"], f"issue codes {codes}")
steps.append("a 404 read as the error body: code 1006")

classes = classes_retrieve.sync(
    client=client, body=ClassificationRequest.from_dict({"tids": ["Apparel"]})
)
check(isinstance(classes, PimType), f"classes retrieve answered {classes!r}")
check([c.tid for c in classes.classes.class_] == ["Apparel"], f"{classes!r}")
steps.append("classes retrieve: Apparel")

channels = channels_retrieve.sync(
    client=client, body=ChannelRequestDto.from_dict({"tids": ["WEB-SHOP", "CAT-2027"]})
)
check(isinstance(channels, PimType), f"channels retrieve answered {channels!r}")
found = [project.tid for project in channels.projects.project]
check(found == ["WEB-SHOP", "CAT-2027"], f"channels retrieve: {found}")
steps.append("channels retrieve: WEB-SHOP, CAT-2027")

print("python client: " + "; ".join(steps))
