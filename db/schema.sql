-- gpudesk bundled catalog, schema version 1 (PRAGMA user_version).
-- Units: GB and GB/s decimal as printed in datasheets (memory_bytes is the physical capacity in bytes:
-- GPU memory sizes are binary, so "80 GB" HBM is 80 GiB); TFLOPS/TOPS dense (no 2:4 sparsity); watts.
-- Booleans are 0/1. Empty CSV cells become NULL ("not supported" or "unknown"; the notes say which).
PRAGMA user_version = 1;

CREATE TABLE gpus (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    vendor TEXT NOT NULL,
    architecture TEXT NOT NULL,
    chip TEXT,
    compute_capability TEXT,
    memory_gb REAL NOT NULL,
    memory_bytes INTEGER NOT NULL,
    memory_type TEXT NOT NULL,
    memory_bandwidth_gbps REAL NOT NULL,
    fp32_tflops REAL NOT NULL,
    tf32_dense_tflops REAL,
    fp16_dense_tflops REAL,
    bf16_dense_tflops REAL,
    fp8_dense_tflops REAL,
    int8_dense_tops REAL,
    fp4_dense_tflops REAL,
    accumulate_note TEXT NOT NULL,
    datasheet_headline_is_sparse TEXT,
    tdp_w REAL NOT NULL,
    form_factor TEXT NOT NULL CHECK (form_factor IN ('SXM', 'PCIe', 'OAM')),
    host_interface TEXT NOT NULL,
    pcie_gen INTEGER NOT NULL,
    pcie_lanes INTEGER NOT NULL,
    nvlink_gbps REAL NOT NULL,
    mig_max_instances INTEGER NOT NULL,
    ecc INTEGER NOT NULL CHECK (ecc IN (0, 1)),
    vgpu INTEGER NOT NULL CHECK (vgpu IN (0, 1)),
    consumer INTEGER NOT NULL CHECK (consumer IN (0, 1)),
    launch_year INTEGER NOT NULL,
    price_usd REAL,
    price_date TEXT,
    price_source TEXT,
    source_url TEXT NOT NULL,
    source_refs TEXT,
    matmul_efficiency REAL CHECK (matmul_efficiency IS NULL OR (matmul_efficiency > 0 AND matmul_efficiency <= 1)),
    matmul_efficiency_source TEXT,
    confidence TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

CREATE VIRTUAL TABLE gpus_fts USING fts5(
    name, vendor, architecture, chip, notes,
    content='gpus', content_rowid='rowid'
);

CREATE TABLE links (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('pcie', 'nvlink', 'network')),
    generation TEXT NOT NULL,
    bandwidth_gbps_per_direction REAL NOT NULL,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

CREATE TABLE servers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('workstation', 'pcie-2u', 'pcie-4u', 'hgx')),
    min_gpus INTEGER NOT NULL,
    max_gpus INTEGER NOT NULL,
    -- How the chassis is sold: 'card' (a PCIe host whose slots take cards bought one by one), 'board' (an HGX/OAM
    -- baseboard bought whole), 'rack' (an NVL72 rack bought whole); sale_unit_gpus GPUs are bought per unit.
    sale_unit TEXT NOT NULL CHECK (sale_unit IN ('card', 'board', 'rack')),
    sale_unit_gpus INTEGER NOT NULL CHECK (sale_unit_gpus >= 1),
    gpu_form_factor TEXT NOT NULL CHECK (gpu_form_factor IN ('SXM', 'PCIe', 'OAM')),
    interconnect TEXT NOT NULL REFERENCES links(id),
    host_link TEXT NOT NULL REFERENCES links(id),
    architectures TEXT,
    gpu_ids TEXT,
    power_w REAL NOT NULL,
    cooling TEXT NOT NULL CHECK (cooling IN ('air', 'liquid')),
    slots INTEGER NOT NULL,
    rack_units INTEGER,
    host_price_usd REAL,
    host_price_source TEXT,
    source_url TEXT NOT NULL,
    confidence TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

CREATE TABLE models (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    family TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('decoder', 'encoder', 'encoder-decoder', 'vision', 'diffusion', 'cnn')),
    params INTEGER NOT NULL,
    layers INTEGER,
    hidden_size INTEGER,
    num_attention_heads INTEGER,
    num_kv_heads INTEGER,
    head_dim INTEGER,
    ffn_size INTEGER,
    vocab_size INTEGER,
    context_length INTEGER,
    moe_experts INTEGER,
    moe_active_experts INTEGER,
    tied_embeddings INTEGER NOT NULL CHECK (tied_embeddings IN (0, 1)),
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT,
    hf_repo TEXT,
    attention_kind TEXT CHECK (attention_kind IS NULL OR attention_kind IN ('mha', 'gqa', 'mqa', 'mla')),
    kv_lora_rank INTEGER,
    q_lora_rank INTEGER,
    qk_rope_head_dim INTEGER,
    moe_ffn_size INTEGER,
    moe_shared_experts INTEGER,
    moe_layers INTEGER,
    sliding_window INTEGER,
    active_params INTEGER,
    sliding_window_layers INTEGER,
    checkpoint_weight_format TEXT,
    vision_model_type TEXT,
    vision_layers INTEGER,
    vision_hidden_size INTEGER,
    vision_intermediate_size INTEGER,
    vision_patch_size INTEGER,
    vision_image_size INTEGER,
    vision_spatial_merge_size INTEGER,
    vision_tokens_per_image INTEGER,
    vision_output_dim INTEGER,
    vision_pixel_shuffle_ratio REAL,
    vision_position_embeddings INTEGER,
    vision_deepstack_layers INTEGER,
    vision_temporal_patch_size INTEGER,
    rope_linear_factor REAL,
    rope_local_base_freq REAL,
    global_kv_heads INTEGER,
    global_head_dim INTEGER,
    -- The catalog model this checkpoint quantizes (same architecture, weights stored in checkpoint_weight_format,
    -- e.g. Qwen/Qwen3-8B-FP8 of qwen3-8b: its config.json adds quantization_config); NULL for an original.
    base_model TEXT REFERENCES models(id)
);

CREATE TABLE precision_support (
    architecture TEXT NOT NULL,
    precision TEXT NOT NULL CHECK (precision IN ('fp16', 'bf16', 'tf32', 'fp8', 'int8', 'int4', 'fp4')),
    supported INTEGER NOT NULL CHECK (supported IN (0, 1)),
    min_cuda TEXT,
    min_driver TEXT,
    min_pytorch TEXT,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT,
    PRIMARY KEY (architecture, precision)
);

CREATE TABLE cuda_arch_support (
    architecture TEXT NOT NULL,
    sm TEXT PRIMARY KEY,
    first_cuda TEXT NOT NULL,
    dropped_in_cuda TEXT,
    pytorch_last_wheel_note TEXT,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

CREATE TABLE scenarios (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    article_memory_gb TEXT NOT NULL,
    corrected_memory_gb TEXT NOT NULL,
    article_recommended TEXT NOT NULL,
    recommended TEXT NOT NULL,
    article_reason TEXT NOT NULL,
    reason TEXT NOT NULL,
    article_alternative TEXT NOT NULL,
    alternative TEXT NOT NULL,
    erratum TEXT,
    profile TEXT,
    source TEXT NOT NULL,
    date_checked TEXT NOT NULL
);

CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    publisher TEXT NOT NULL,
    url TEXT,
    licence TEXT NOT NULL,
    used_for TEXT NOT NULL,
    attribution TEXT,
    date_checked TEXT NOT NULL
);

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Dated, sourced prices (issue 12). Purchase prices are per GPU (or per system for a rack/server); cloud rates
-- are per GPU-hour. kind says what the figure is: a vendor list price, a street price seen at retailers, a
-- published quote, a dated market report (analyst or press), or a cloud rate (on-demand, committed, spot).
-- A range in the source is kept as price_low_usd..price_high_usd with price_usd its midpoint (notes say so).
CREATE TABLE prices (
    id TEXT PRIMARY KEY,
    item_kind TEXT NOT NULL CHECK (item_kind IN ('gpu', 'server')),
    item_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('list', 'street', 'quote', 'market-report', 'cloud-on-demand',
                                       'cloud-committed', 'cloud-spot')),
    unit TEXT NOT NULL CHECK (unit IN ('per-gpu', 'per-system', 'per-gpu-hour')),
    price_usd REAL NOT NULL CHECK (price_usd > 0),
    price_low_usd REAL,
    price_high_usd REAL,
    provider TEXT,
    price_date TEXT NOT NULL,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

-- Vendor software stacks (issue 32): one row per non-CUDA architecture. frameworks is ';'-separated lower-case
-- framework names a requirement's software.framework is matched against; the text columns are shown to buyers as
-- stack warnings (what runs PyTorch, which attention kernels exist, which serving engines support the part).
CREATE TABLE software_stacks (
    architecture TEXT PRIMARY KEY,
    vendor TEXT NOT NULL,
    stack TEXT NOT NULL,
    pytorch_backend TEXT NOT NULL,
    frameworks TEXT NOT NULL,
    min_stack_version TEXT,
    flash_attention TEXT NOT NULL,
    serving_engines TEXT NOT NULL,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

-- GPUs made for one market only (issue 29): export-control variants such as the China-market A800, H800, H20,
-- L20 and RTX 4090 D. A GPU without a row is sold worldwide. A plan's market (operations.market) decides
-- which of these it may recommend.
CREATE TABLE gpu_markets (
    gpu_id TEXT NOT NULL REFERENCES gpus(id),
    market TEXT NOT NULL CHECK (market IN ('china')),
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT,
    PRIMARY KEY (gpu_id, market)
);

-- Packages that hold several devices (issue 32): each die is its own device to the driver, the SMI and the
-- framework, with its own memory (AMD MI250X: two GCDs, AMD CDNA 2 white paper; Ascend 910C: two dies, each an
-- npu-smi chip with its own HBM). A GPU without a row is one device. The planner plans in devices.
CREATE TABLE gpu_packages (
    gpu_id TEXT PRIMARY KEY REFERENCES gpus(id),
    devices INTEGER NOT NULL CHECK (devices >= 2),
    die_link_gbps_per_direction REAL,
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

-- ECC on GDDR memory (issue 26): GDDR cards keep their ECC check bits in the same DRAM, so with ECC on the driver
-- reports 1/16 less memory ("On GPUs with GDDR memory with ECC enabled the available DRAM is reduced by 6.25%",
-- NVIDIA CUDA C++ Best Practices Guide); HBM carries ECC beside the data and loses nothing. The state a card
-- ships in: on for data-center (Tesla-class) cards, off for GeForce and RTX workstation cards. A GDDR card
-- without a row has no ECC to turn on. Sizing reads ecc_default_on unless the user gives the ECC state.
CREATE TABLE gpu_memory_ecc (
    gpu_id TEXT PRIMARY KEY REFERENCES gpus(id),
    ecc_default_on INTEGER NOT NULL CHECK (ecc_default_on IN (0, 1)),
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

-- Streaming multiprocessors per GPU (gpu_sms.csv): how many thread blocks of a large-tile GEMM run at once, the
-- wave a GEMM's output tiles fill (gpudesk/sizing/gemm_waves.py). A GPU without a row: unknown (no wave term).
CREATE TABLE gpu_streaming_multiprocessors (
    gpu_id TEXT PRIMARY KEY REFERENCES gpus(id),
    sm_count INTEGER NOT NULL CHECK (sm_count > 0),
    source_url TEXT NOT NULL,
    date_checked TEXT NOT NULL,
    notes TEXT
);

