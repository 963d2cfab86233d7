def test_dag_layering_independent_nodes_share_layer():
    pass


def test_stable_ids_survive_reordering():
    pass
