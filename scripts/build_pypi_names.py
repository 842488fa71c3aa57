"""Build ``tddgit/runners/pypi_names.json``: import names of widely used PyPI distributions.

The gates use it to tell a missing third-party module (amber ``environment``: install it)
from a project module not written yet (red ``not-implemented``). Sources, merged in order:

1. pipreqs' ``mapping`` file (pipreqs 0.5.0, Apache-2.0): ~1150 import names whose
   distribution has another name (``yaml`` -> ``PyYAML``). Pass the wheel's path.
2. ``CURATED`` below: widely used distributions imported under their own name (pandas,
   numpy, requests ...), written by hand from the usual "most downloaded" lists.
3. The ``top_level.txt`` of every distribution installed in the running interpreter.

Run: ``python scripts/build_pypi_names.py pipreqs-0.5.0-py3-none-any.whl``.
"""

from __future__ import annotations

import json
import sys
import zipfile
from importlib import metadata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tddgit" / "runners" / "pypi_names.json"

CURATED = """
aiofiles aiohttp aiosignal alembic altair amqp annotated_types anyio appdirs argcomplete
argon2 arrow asgiref astroid asttokens async_timeout asyncpg attrs autopep8 avro babel
backoff bcrypt billiard black bleach blinker boto boto3 botocore bottle cachetools cattrs
celery certifi cffi chardet charset_normalizer click cloudpickle colorama coloredlogs
colorlog confluent_kafka constructs contourpy coverage croniter cryptography cssselect
cycler cython dash dask databricks datadog dataclasses_json datasets dateparser decorator
deepdiff defusedxml deprecated deprecation dill distlib distro django dnspython docker
docopt docutils dulwich ecdsa elasticsearch email_validator emoji et_xmlfile eventlet
exceptiongroup execnet executing factory faker fastapi fastavro fastjsonschema filelock
fiona flake8 flask flask_cors flask_login flask_sqlalchemy flatbuffers fonttools
frozenlist fsspec ftfy future gast gcsfs geopandas gevent geventhttpclient gitdb graphene
graphql great_expectations greenlet grpc grpcio gunicorn h11 h2 h5py hatchling holidays
hpack html5lib httpcore httplib2 httptools httpx huggingface_hub humanfriendly hvac
hyperframe hypothesis idna imageio imagesize importlib_metadata importlib_resources
inflection iniconfig invoke ipykernel ipython ipywidgets isodate isort itsdangerous
jaraco jedi jinja2 jmespath joblib jsonpatch jsonpointer jsonschema jupyter
jupyter_client jupyter_core jupyterlab keras kiwisolver kombu kubernetes langchain
lazy_object_proxy libcst lightgbm llvmlite locust loguru lxml lz4 mako markdown
markdown_it markupsafe marshmallow matplotlib matplotlib_inline mccabe mdurl mistune
mock more_itertools moto msal msgpack msrest multidict multiprocess mypy mypy_extensions
mysqlclient nbclient nbconvert nbformat nest_asyncio networkx nltk nodeenv notebook
numba numexpr numpy oauthlib openai openpyxl opensearchpy opentelemetry orjson
oscrypto packaging paramiko parso pathspec patsy pbr pendulum pexpect pika pillow
pip pkginfo platformdirs plotly pluggy ply polars portalocker prometheus_client
prompt_toolkit proto protobuf psutil psycopg psycopg2 ptyprocess pulumi pure_eval py
pyarrow pyasn1 pyasn1_modules pycodestyle pycparser pycryptodome pydantic
pydantic_core pydantic_settings pyflakes pygments pylint pymongo pymysql pynacl
pyodbc pyopenssl pyparsing pyproj pyrsistent pyspark pytest pytest_asyncio pytest_cov
pytest_mock pytest_xdist pytz pyzmq qtpy rapidfuzz ratelimit readme_renderer redis
referencing regex requests requests_oauthlib requests_toolbelt responses retry
retrying rfc3339_validator rich rpds rsa ruamel ruff s3fs s3transfer safetensors
scipy scrapy seaborn selenium semver sentencepiece sentry_sdk setuptools shapely
simplejson six slack_sdk smart_open smmap sniffio snowflake sortedcontainers soupsieve
sphinx sqlalchemy sqlparse srsly starlette statsmodels structlog sympy tabulate
tblib tenacity tensorboard tensorflow termcolor terminado text_unidecode textual
threadpoolctl tifffile tiktoken tinycss2 tokenizers toml tomli tomlkit toolz torch
torchaudio torchvision tornado tqdm traitlets transformers trio twine twisted typer
typing_extensions typing_inspect tzdata tzlocal ujson unidecode uritemplate urllib3
uvicorn uvloop validators virtualenv watchdog watchfiles wcwidth webencodings
websocket websockets werkzeug wheel widgetsnbextension wrapt xgboost xlrd xlsxwriter
xmltodict xxhash yarl zipp zope zstandard
pandas scikit_learn sklearn skimage statsmodels xarray netcdf4 pyqt5 pyside6 kivy pygame
pyglet arcade pymunk opencv cv2 tensorflow_hub jax jaxlib flax optax onnx onnxruntime
lightning pytorch_lightning accelerate peft diffusers spacy gensim textblob pattern
streamlit gradio bokeh holoviews panel folium pydeck cartopy rasterio geopy osmnx
paho pyserial serial usb bluetooth smbus spidev rpi gpiozero pexpect sh plumbum fabric
ansible salt pyinfra invoke nox tox pipenv poetry flit pdm hatch build installer
cookiecutter copier jinja2_time pyinstaller cx_freeze nuitka py2app briefcase toga
wx pyautogui pynput keyboard mouse pywinauto win32api pythoncom comtypes
sqlmodel peewee pony tortoise databases motor beanie mongoengine cassandra neo4j
py2neo influxdb clickhouse_driver duckdb sqlite_utils records dataset tinydb
pika kafka aiokafka nats zmq grpc_tools thrift avro capnp flatbuffers msgspec
cbor2 bson ujson rapidjson simdjson ijson jsonlines jsonpath_ng glom jq
marshmallow_dataclass pydantic_extra_types attrs_strict dacite apischema desert
click_default_group cleo typer_cli fire plac docopt_ng argh clize cement
colorama blessed curses_menu urwid asciimatics npyscreen prompt_toolkit questionary
inquirer pick halo yaspin alive_progress progressbar tqdm_joblib enlighten
pyfiglet art cowsay termcolor crayons humanize arrow pendulum maya delorean
dateutil pytz tzlocal babel icalendar recurring_ical_events ics
requests_html httpie treq grequests pycurl urllib3_secure_extra mechanize
beautifulsoup4 bs4 parsel w3lib scrapy_splash playwright pyppeteer splinter
feedparser newspaper trafilatura readability html2text markdownify mistletoe
commonmark markdown2 pypandoc docx pptx openpyxl xlwt xlutils pyexcel tablib
reportlab fpdf pypdf pypdf2 pdfminer pdfplumber camelot tabula fitz pikepdf
qrcode barcode pyzbar pytesseract easyocr wand imageio_ffmpeg moviepy pydub
librosa soundfile sounddevice pyaudio simpleaudio mutagen eyed3 vlc
paramiko scp fabric2 netmiko napalm ncclient scapy dpkt pyshark netaddr ipaddr
dns ldap3 kerberos gssapi pysnmp pymodbus can
jwt jose authlib itsdangerous passlib argon2_cffi bcrypt keyring cryptography nacl
hashids shortuuid nanoid ulid uuid6 python_slugify slugify
faker mimesis factory_boy model_bakery freezegun time_machine responses httpretty
vcr betamax requests_mock aioresponses respx pytest_httpx pytest_django pytest_flask
pytest_benchmark pytest_timeout pytest_randomly pytest_rerunfailures pytest_bdd behave
lettuce robot nose nose2 testfixtures parameterized ddt sure expects assertpy pyhamcrest
hamcrest mamba doublex flexmock pretend mockito approvaltests syrupy snapshottest
coverage codecov pytest_sugar pytest_html allure
django_filter rest_framework corsheaders django_extensions debug_toolbar crispy_forms
channels daphne celery_beat django_celery_results django_redis storages environ
decouple dotenv dynaconf hydra omegaconf configparser2 confuse everett
flask_restful flask_migrate flask_wtf wtforms flask_jwt_extended flask_mail flask_caching
sanic quart falcon hug bottle cherrypy pyramid tornado aiohttp_jinja2 litestar
starlette_exporter slowapi fastapi_users sse_starlette websocket_client wsproto
gunicorn waitress hypercorn daphne uwsgi meinheld bjoern
boto3_stubs aws_cdk awscli sagemaker google cloud azure firebase_admin pyrebase
openai anthropic cohere tiktoken langchain_core llama_index chromadb pinecone
faiss annoy hnswlib qdrant_client weaviate sentence_transformers
networkx igraph graph_tool pyvis pydot graphviz
sympy mpmath gmpy2 numexpr bottleneck numba cupy pycuda pyopencl dask_ml
pymc arviz emcee corner astropy sunpy biopython bio rdkit pysam scanpy anndata
nibabel nilearn mne pydicom simpleitk vtk mayavi trimesh open3d pyvista
"""


def main(wheel: str) -> None:
    names: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as zf:
        for line in zf.read("pipreqs/mapping").decode("utf-8").splitlines():
            module, _, dist = line.partition(":")
            if module and dist:
                names.setdefault(module.strip().lower(), dist.strip())
    for name in CURATED.split():
        names.setdefault(name, name.replace("_", "-"))
    for dist in metadata.distributions():
        top = dist.read_text("top_level.txt") or ""
        for module in top.split():
            if module.isidentifier() and not module.startswith("_"):
                names.setdefault(module.lower(), dist.metadata["Name"])
    data = {
        "source": "pipreqs 0.5.0 `mapping` (Apache-2.0), a hand-curated list of widely used "
        "distributions imported under their own name, and top_level.txt of the distributions "
        "installed where scripts/build_pypi_names.py ran",
        "names": dict(sorted(names.items())),
    }
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(names)} import names -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
